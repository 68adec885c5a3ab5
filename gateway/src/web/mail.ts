import { createMailTransport } from '@dv/notify';
import { html, renderHtml } from '@dv/web';

// The console's emails: a sign-in link, and the same link for someone just added to an account.
// The message holds only the link; the link's page asks for a press of a button before it signs
// anyone in (mail scanners open links). Bodies are rendered with the escaping markup of @dv/web, so
// an account name holding markup reaches the reader as text.

export interface SignInMail {
  to: string;
  link: string;
  expiresAt: Date;
  /** Set for an invitation: who added the person, to which account. */
  invitedBy?: { email: string; accountName: string };
}

export interface ConsoleMailer {
  sendSignIn(mail: SignInMail): Promise<void>;
  close(): void;
}

const utc = (d: Date) => `${d.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
// eslint-disable-next-line no-control-regex -- a header must not carry control characters
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 80);

export function signInMailBody(mail: SignInMail): { subject: string; text: string; html: string } {
  const invite = mail.invitedBy;
  const subject = invite ? `You were added to ${oneLine(invite.accountName)} on the verification console` : 'Your sign-in link for the verification console';
  const lead = invite ? `${invite.email} added you to the account "${invite.accountName}" on the email verification console.` : 'Someone (hopefully you) asked to sign in to the email verification console with this address.';
  const text = [lead, '', 'Open this link and press "Sign in":', mail.link, '', `The link works once, until ${utc(mail.expiresAt)}.`, 'If you did not expect this, ignore this email; nothing happens.'].join('\n');
  const body = renderHtml(html`<div>
    <p>${lead}</p>
    <p><a href=${mail.link}>Open the console and sign in</a></p>
    <p>The link works once, until ${utc(mail.expiresAt)}. If you did not expect this, ignore this email; nothing happens.</p>
  </div>`);
  return { subject, text, html: body };
}

export function createConsoleMailer(relayUrl: string, from: string): ConsoleMailer {
  const transport = createMailTransport(relayUrl);
  return {
    async sendSignIn(mail) {
      await transport.sendMail({ from, to: mail.to, ...signInMailBody(mail) });
    },
    close: () => transport.close(),
  };
}
