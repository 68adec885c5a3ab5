export * from './ids.ts';
export * from './plans.ts';
export * from './errors.ts';
export * from './subjects.ts';
export * from './collections.ts';
export * from './messages.ts';
export * from './jobs.ts';
export * from './portfolio.ts';
