// The portfolio REST API (docs/portfolio-scanner.md "API").
export { mountPortfolioApi, requirePortfolioHttps } from './app.ts';
export { ApiLimits } from './limits.ts';
export type { ApiContext, ApiCaller } from './context.ts';
export { PORTFOLIO_ERROR_STATUS, type PortfolioErrorCode } from './errors.ts';
export { portfolioRoutes } from './routes/index.ts';
export { buildOpenApiDocument } from './openapi.ts';
