// The route helper shared by the HTTP APIs (verification, lookup, portfolio): each binds it to its
// own context, caller and error model (gateway/src/http/route.ts, lookup/src/routes/route.ts,
// portfolio-scanner/src/api/app.ts).
export * from './define.ts';
export * from './issues.ts';
export * from './mount.ts';
export * from './openapi.ts';
