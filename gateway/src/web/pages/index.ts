import type { PageDef } from '../page.ts';
import { listConfirm } from './list-confirm.ts';
import { listNewPage, listNewUpload } from './list-new.ts';
import { listPreviewPage } from './list-preview.ts';
import { overviewPage } from './overview.ts';
import { sandboxSwitch } from './sandbox.ts';
import { signInLinkPage, signInLinkUse } from './sign-in-link.ts';
import { signInPage, signInSend } from './sign-in.ts';
import { signOutEverywhere } from './sign-out-everywhere.ts';
import { signOut } from './sign-out.ts';
import { switchAccount } from './switch-account.ts';

// Every console page, in one list (mount.ts mounts them under /app).
export const CONSOLE_PAGES: readonly PageDef[] = [signInPage, signInSend, signInLinkPage, signInLinkUse, signOut, signOutEverywhere, overviewPage, switchAccount, sandboxSwitch, listNewPage, listNewUpload, listPreviewPage, listConfirm];
