// @dv/web/testing: the browser harness every service's page tests use.
export { axeViolations, checkedPage, horizontalOverflow, launchBrowser, type AxeViolation, type CheckedPage, type PageOptions, type PageProblems } from './browser.ts';
