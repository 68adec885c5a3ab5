// The one closed list of machine-readable error codes of the verification API, each with its HTTP
// status. Routes throw by code; the status always comes from here.
export const ERROR_STATUS = {
  invalid_request: 400,
  validation_error: 422,
  idempotency_key_reused: 422,
  invalid_upload: 422,
  missing_api_key: 401,
  invalid_api_key: 401,
  insufficient_credits: 402,
  plan_not_entitled: 403,
  account_inactive: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  job_too_large: 413,
  file_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  daily_cap_reached: 429,
  too_many_active_jobs: 429,
  too_many_in_flight: 429,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  timeout: 504,
  // lookup service (docs/lookup.md)
  invalid_target: 400,
  verification_link_expired: 410,
  quota_exhausted: 429,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 409: 'Conflict', 410: 'Gone', 413: 'Content Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};
