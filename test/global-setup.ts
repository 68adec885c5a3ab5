// Placeholder replaced by the real stack setup; DV_TEST_STACK=0 skips it for pure unit runs.
export default async function setup(): Promise<void> {}
