// Where the console keeps its Redis keys and what its emailed sign-in links look like: one place
// for the pages and for the admin entry (@dv/gateway/admin), whose links must work on the pages.

/** The Redis key prefix of the console's sessions, one-time links and sign-in limits. */
export const consoleKeyPrefix = (redisKeyPrefix: string): string => `${redisKeyPrefix}console`;

/** The link a sign-in token opens: its GET shows a button, the button's POST signs in. */
export const signInLinkUrl = (baseUrl: string, token: string): string => `${baseUrl.replace(/\/+$/, '')}/app/sign-in/link?token=${token}`;
