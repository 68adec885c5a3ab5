import { AccountError, addMember, can, listMembers, MAX_MEMBERS_PER_ACCOUNT, normalizeEmail, removeMember, ROLES, setMemberRole, type Member, type Role } from '@dv/accounts';
import { badge, field, html, postForm, select, submit, table, type Node } from '@dv/web';
import { plural, utcDate, utcTime } from '../format.ts';
import { confirmForm, formText } from '../forms.ts';
import { definePage, type PageCall, type PageResult } from '../page.ts';
import type { Viewer } from '../viewer.ts';

// GET /app/members: the people in the account. Owners invite (POST /app/members: the address is
// added at once and mailed a sign-in link that opens this account) and remove people (POST
// /app/members/remove) or change their role (POST /app/members/role); the last owner stays. Members see the list without the forms, and a
// member's POST gets the 403 page (definePage's access check).

function columns(viewer: Viewer, csrf: string) {
  const cols = [
    { header: 'Email', cell: (m: Member) => html`${m.person.email}${m.person._id === viewer.personId ? html` ${badge('you', 'neutral')}` : null}` },
    { header: 'Role', cell: (m: Member) => m.membership.role },
    { header: 'Added', cell: (m: Member) => utcDate(m.membership.created_at) },
    { header: 'Last sign-in', cell: (m: Member) => (m.person.last_signed_in_at ? utcTime(m.person.last_signed_in_at) : 'never') },
  ];
  if (!can(viewer.role, 'manage_members')) return cols;
  const remove = (m: Member) =>
    confirmForm('/app/members/remove', csrf, `Remove ${m.person.email} from ${viewer.account.name}? They lose access at their next request.`, html`<input type="hidden" name="person" value=${m.person._id} />${submit('Remove', { kind: 'danger' })}`, `Remove ${m.person.email}`);
  const other = (m: Member): Role => (m.membership.role === 'owner' ? 'member' : 'owner');
  const change = (m: Member) =>
    postForm('/app/members/role', csrf, html`<input type="hidden" name="person" value=${m.person._id} /><input type="hidden" name="role" value=${other(m)} />${submit(`Make ${other(m)}`, { kind: 'plain' })}`, { className: 'inline', label: `Make ${m.person.email} ${other(m)}` });
  return [...cols, { header: 'Change', cell: (m: Member) => html`${change(m)}${remove(m)}` }];
}

function inviteForm(csrf: string, email = '', role: Role = 'member', error?: string): Node {
  return html`<section aria-labelledby="invite-h">
    <h2 id="invite-h">Invite someone</h2>
    <p>They are added at once and get an email with a sign-in link that opens this account. A member runs lists and checks and sees the account; an owner also manages API keys, members and the webhook secret.</p>
    ${postForm(
      '/app/members',
      csrf,
      html`${field({ name: 'email', label: 'Email address', type: 'email', value: email, error, required: true, autocomplete: 'off' })}
        ${select({ name: 'role', label: 'Role', value: role, options: ROLES.map((r) => ({ value: r, label: r })) })}
        ${submit('Invite')}`,
      { label: 'Invite someone' },
    )}
  </section>`;
}

async function membersView(call: PageCall<Viewer>, invite?: { email: string; role: Role; error: string }): Promise<PageResult> {
  const { cc, viewer } = call;
  const members = await listMembers(cc.api.db, viewer.account._id);
  const owner = can(viewer.role, 'manage_members');
  return {
    title: 'Members',
    status: invite ? 400 : 200,
    body: html`<h1>Members of ${viewer.account.name}</h1>
      <p class="lead">${plural(members.length, 'person', 'people')} of at most ${MAX_MEMBERS_PER_ACCOUNT}: an account holds at most ${MAX_MEMBERS_PER_ACCOUNT} people, owners and members together.</p>
      ${table('People in the account', columns(viewer, call.csrf()), members, 'No one is in this account.')}
      <p>The last owner cannot be removed: an account always keeps one owner. To leave it, make someone else an owner first.</p>
      ${owner ? inviteForm(call.csrf(), invite?.email, invite?.role, invite?.error) : html`<p class="muted">Only an owner invites and removes people.</p>`}`,
  };
}

export const membersPage = definePage({ method: 'get', path: '/members', access: 'view_account', handle: (call) => membersView(call) });

/** Mails the invited person a sign-in link that opens the account; says in words when it could not. */
async function mailInvitation(call: PageCall<Viewer>, email: string): Promise<string> {
  const { cc, viewer } = call;
  if (!cc.mailer) return `This service cannot send email, so tell ${email} to sign in at ${cc.baseUrl}/app/sign-in.`;
  // Invitations count with the address's sign-in links: adding and removing someone in a loop
  // cannot flood their inbox.
  const perEmail = cc.api.config.SIGN_IN_LINKS_PER_EMAIL_PER_DAY;
  if (!(await cc.linksPerEmail.take(email, perEmail)).allowed) return `No email was sent: ${email} has had ${perEmail} sign-in links today. They can sign in at ${cc.baseUrl}/app/sign-in after 00:00 UTC.`;
  const ttlMs = cc.api.config.SIGN_IN_LINK_TTL_MINUTES * 60_000;
  const token = await cc.links.issue({ email, accountId: viewer.account._id }, ttlMs);
  try {
    await cc.mailer.sendSignIn({ to: email, link: `${cc.baseUrl}/app/sign-in/link?token=${token}`, expiresAt: new Date(Date.now() + ttlMs), invitedBy: { email: viewer.email, accountName: viewer.account.name } });
    return `We emailed ${email} a sign-in link.`;
  } catch (err) {
    cc.api.log.error({ err: (err as Error).message }, 'could not send an invitation email');
    return `The invitation email could not be sent, so tell ${email} to sign in at ${cc.baseUrl}/app/sign-in.`;
  }
}

export const inviteMember = definePage({
  method: 'post',
  path: '/members',
  access: 'manage_members',
  handle: async (call) => {
    const { cc, req, viewer } = call;
    const raw = formText(req.body, 'email');
    const role = (ROLES as readonly string[]).includes(formText(req.body, 'role')) ? (formText(req.body, 'role') as Role) : 'member';
    const email = normalizeEmail(raw);
    if (!email) return membersView(call, { email: raw.slice(0, 254), role, error: 'Enter an email address such as someone@example.com.' });
    let added: boolean;
    try {
      ({ added } = await addMember(cc.api.db, viewer.account._id, email, role, viewer.personId));
    } catch (err) {
      if (err instanceof AccountError && err.code === 'limit') return membersView(call, { email, role, error: `${viewer.account.name} already has ${MAX_MEMBERS_PER_ACCOUNT} people, the most an account holds. Remove someone first.` });
      throw err;
    }
    if (!added) return { redirect: '/app/members', flash: { kind: 'info', text: `${email} is already in ${viewer.account.name}; nothing changed.` } };
    const mailed = await mailInvitation(call, email);
    return { redirect: '/app/members', flash: { kind: 'ok', text: `${email} was added as ${role}. ${mailed}` } };
  },
});

export const removeMemberPage = definePage({
  method: 'post',
  path: '/members/remove',
  access: 'manage_members',
  handle: async ({ cc, req, viewer }) => {
    const personId = formText(req.body, 'person');
    try {
      await removeMember(cc.api.db, viewer.account._id, personId);
    } catch (err) {
      if (!(err instanceof AccountError) || err.code === 'invalid' || err.code === 'limit') throw err;
      const text = err.code === 'conflict' ? 'The last owner cannot be removed: an account always keeps one owner. Make someone else an owner first.' : 'That person is not in this account (any more); nothing changed.';
      return { redirect: '/app/members', flash: { kind: 'error', text } };
    }
    return { redirect: personId === viewer.personId ? '/app/' : '/app/members', flash: { kind: 'ok', text: personId === viewer.personId ? `You left ${viewer.account.name}.` : 'Removed from the account.' } };
  },
});

export const changeRole = definePage({
  method: 'post',
  path: '/members/role',
  access: 'manage_members',
  handle: async ({ cc, req, viewer }) => {
    const role = formText(req.body, 'role');
    if (!(ROLES as readonly string[]).includes(role)) return { redirect: '/app/members', flash: { kind: 'error', text: `A role is one of ${ROLES.join(', ')}; nothing changed.` } };
    try {
      await setMemberRole(cc.api.db, viewer.account._id, formText(req.body, 'person'), role as Role);
    } catch (err) {
      if (!(err instanceof AccountError) || (err.code !== 'conflict' && err.code !== 'not_found')) throw err;
      const text = err.code === 'conflict' ? 'The last owner stays an owner: an account always keeps one. Make someone else an owner first.' : 'That person is not in this account (any more); nothing changed.';
      return { redirect: '/app/members', flash: { kind: 'error', text } };
    }
    return { redirect: '/app/members', flash: { kind: 'ok', text: `Role changed to ${role}.` } };
  },
});
