import type { PageDef } from '../page.ts';
import { jobCancel } from './job-cancel.ts';
import { jobLiveFragment, jobPage } from './job-page.ts';
import { jobsListPage, jobsLiveFragment } from './jobs-list.ts';
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

// Every console page, in one list (mount.ts mounts them under /app, in this order: the pages of
// /app/lists/<job id> come after every fixed /app/lists/… path, such as /app/lists/live).
export const CONSOLE_PAGES: readonly PageDef[] = [
  signInPage,
  signInSend,
  signInLinkPage,
  signInLinkUse,
  signOut,
  signOutEverywhere,
  overviewPage,
  switchAccount,
  sandboxSwitch,
  jobsListPage,
  jobsLiveFragment,
  listNewPage,
  listNewUpload,
  listPreviewPage,
  listConfirm,
  jobPage,
  jobLiveFragment,
  jobCancel,
];
