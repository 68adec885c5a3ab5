import nodemailer from 'nodemailer';

// Verification emails go through the configured SMTP relay (SMTP_RELAY_URL) with nodemailer. The
// message holds the link and nothing else secret: the key itself is only ever shown on the page
// the link opens.

export interface VerificationMail {
  to: string;
  link: string;
  expiresAt: Date;
  lookupsPerDay: number;
}

export interface Mailer {
  sendVerification(mail: VerificationMail): Promise<void>;
  close(): void;
}

export function createSmtpMailer(opts: { relayUrl: string; from: string; timeoutMs: number }): Mailer {
  const url = new URL(opts.relayUrl);
  const secure = url.protocol === 'smtps:';
  const transport = nodemailer.createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  });
  return {
    async sendVerification(mail) {
      await transport.sendMail({ from: opts.from, to: mail.to, subject: 'Confirm your email to get your free lookup API key', ...verificationBody(mail) });
    },
    close: () => transport.close(),
  };
}

export function verificationBody(mail: VerificationMail): { text: string; html: string } {
  const until = mail.expiresAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const text = [
    'Someone (hopefully you) asked for a free API key for the domain lookup API with this address.',
    '',
    'Open this link to confirm and see your key. The page shows the key once, so copy it then:',
    mail.link,
    '',
    `The link works once, until ${until}.`,
    `The free key allows ${mail.lookupsPerDay} lookups a day. Send it as: Authorization: Bearer <key>`,
    '',
    'If you did not ask for this, ignore this email; nothing happens.',
  ].join('\n');
  const href = escapeHtml(mail.link);
  const html =
    `<p>Someone (hopefully you) asked for a free API key for the domain lookup API with this address.</p>` +
    `<p><a href="${href}">Confirm your email and show your key</a> (the key is shown once, so copy it then).</p>` +
    `<p>The link works once, until ${until}. The free key allows ${mail.lookupsPerDay} lookups a day; send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>` +
    `<p>If you did not ask for this, ignore this email; nothing happens.</p>`;
  return { text, html };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}
