// What other workspaces' tests and benchmarks use of the scanner's fixtures (@dv/portfolio-scanner/testing).
export { seedPortfolio } from './exports/testing/seed.ts';
