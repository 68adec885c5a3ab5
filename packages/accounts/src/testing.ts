// What the services' revocation tests share (@dv/accounts/testing): the lanes that revoke many keys
// while two replicas serve them, so each service's test says only how it uses, revokes and checks.

/**
 * Runs `step` over `items` in `lanes` independent lanes (item i in lane i % lanes), each lane one
 * item at a time. A step answers null when all held, or a line saying what did not; a lane stops
 * once `enough` lines are in, to keep a failing run short. Returns the lines, in the order found.
 */
export async function inLanes<T>(items: readonly T[], lanes: number, step: (item: T, index: number) => Promise<string | null>, enough = 10): Promise<string[]> {
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = lane; i < items.length && failures.length < enough; i += lanes) {
        const failed = await step(items[i]!, i);
        if (failed) failures.push(failed);
      }
    }),
  );
  return failures;
}
