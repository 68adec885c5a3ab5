import type { PageDef } from '../page.ts';
import { checkLive } from './check-live.ts';
import { checkResultPage } from './check-result.ts';
import { checkPage, checkRun } from './check.ts';
import { overviewPage } from './overview.ts';
import { sandboxSwitch } from './sandbox.ts';
import { signInLinkPage, signInLinkUse } from './sign-in-link.ts';
import { signInPage, signInSend } from './sign-in.ts';
import { signOutEverywhere } from './sign-out-everywhere.ts';
import { signOut } from './sign-out.ts';
import { switchAccount } from './switch-account.ts';

// Every console page, in one list (mount.ts mounts them under /app).
export const CONSOLE_PAGES: readonly PageDef[] = [signInPage, signInSend, signInLinkPage, signInLinkUse, signOut, signOutEverywhere, overviewPage, switchAccount, sandboxSwitch, checkPage, checkRun, checkResultPage, checkLive];
