// The rescan planner and its lease (docs/portfolio-scanner.md "Workers and planner").
export { Planner, type PlannerConfig, type PlannerDeps, type TickResult } from './planner.ts';
export { Lease, type LeaseOptions } from './lease.ts';
