// Scan workers, scan requests and the queue gauges (docs/portfolio-scanner.md "Workers and planner").
export { ScanWorker, type ScanWorkerConfig, type ScanWorkerDeps } from './worker.ts';
export { requestScan, scanMessageId, type RequestScanOptions, type RequestedScan } from './request.ts';
export { readQueueFigures, OVERDUE_FRACTION } from './queue.ts';
export { SCAN_METRICS, SCAN_OUTCOMES, scanMetrics, registerQueueGauges, type QueueFigures, type ScanPriority } from './metrics.ts';
export { PORTFOLIO_STREAM, SCAN_SUBJECTS } from './stream.ts';
