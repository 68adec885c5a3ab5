// Cases of the RFC 7208 suite that the engine is known not to pass, each with its reason.
// The suite test skips them but asserts that each one still fails, so this list cannot go stale:
// fix the engine and the entry must be removed.
export const EXCEPTIONS: Readonly<Record<string, string>> = {};
