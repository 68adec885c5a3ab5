export * from './keys.ts';
export * from './model.ts';
export * from './store.ts';
export * from './portfolio-keys.ts';
export * from './auth-marks.ts';
export * from './authenticator.ts';
export * from './people.ts';
export * from './allowance.ts';
