// The route helper shared by the HTTP APIs (docs/portfolio-scanner.md "API": the portfolio API is
// the first on it; the verification and lookup APIs keep their own until they move).
export * from './define.ts';
export * from './issues.ts';
export * from './mount.ts';
export * from './openapi.ts';
