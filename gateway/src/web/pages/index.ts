import type { PageDef } from '../page.ts';
import { accountPage, rotateWebhookSecret } from './account.ts';
import { checkLive } from './check-live.ts';
import { checkResultPage } from './check-result.ts';
import { checkPage, checkRun } from './check.ts';
import { jobCancel } from './job-cancel.ts';
import { jobLiveFragment, jobPage } from './job-page.ts';
import { jobsListPage, jobsLiveFragment } from './jobs-list.ts';
import { keyCreate } from './key-create.ts';
import { keyRevoke } from './key-revoke.ts';
import { keysPage } from './keys.ts';
import { changeRole, inviteMember, membersPage, removeMemberPage } from './members.ts';
import { listConfirm } from './list-confirm.ts';
import { listNewPage, listNewUpload } from './list-new.ts';
import { listPreviewPage } from './list-preview.ts';
import { overviewPage } from './overview.ts';
import { planPage } from './plan.ts';
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
  accountPage,
  rotateWebhookSecret,
  planPage,
  membersPage,
  inviteMember,
  removeMemberPage,
  changeRole,
  keysPage,
  keyCreate,
  keyRevoke,
  checkPage,
  checkRun,
  checkResultPage,
  checkLive,
  // Last: /app/lists/<job id> and below.
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
