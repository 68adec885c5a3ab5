// Every reply a scripted host can send, worded like the real servers the behaviours imitate
// (Postfix and Postgrey for most, Gmail for the rate limit, Spamhaus-using MTAs for the block).
export const REPLIES = {
  helloFirst: '503 5.5.1 Error: send HELO/EHLO first',
  mailOk: '250 2.1.0 Ok',
  rcptOk: '250 2.1.5 OK',
  rcptCannotVerify: '252 2.1.5 Cannot VRFY user, but will accept message',
  unknownUser: (address: string) => `550 5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`,
  greylisted: (address: string, domain: string) =>
    `450 4.7.1 <${address}>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/${domain}.html`,
  rateLimited: '421 4.7.0 Try again later, closing connection.',
  tooManyRecipients: '452 4.5.3 Too many recipients',
  temporaryFailure: (address: string) => `451 4.3.0 <${address}>: Temporary lookup failure`,
  tooManyErrors: (hostName: string) => `421 4.7.0 ${hostName} Error: too many errors`,
  mailboxFull: (address: string) => `552 5.2.2 <${address}>: Mailbox full`,
  policyBlocked: (clientIp: string) => `554 5.7.1 Service unavailable; Client host [${clientIp}] blocked using zen.spamhaus.org`,
  startTlsRequired: '530 5.7.0 Must issue a STARTTLS command first',
  startTlsReady: '220 2.0.0 Ready to start TLS',
  tlsActive: '554 5.5.1 Error: TLS already active',
  tlsUnavailable: '454 4.7.0 TLS not available due to local problem',
  dataRefused: '554 5.7.1 Error: this simulated host never accepts message content',
  needMail: '503 5.5.1 Error: need MAIL command',
  nestedMail: '503 5.5.1 Error: nested MAIL command',
  mailSyntax: '501 5.5.4 Syntax: MAIL FROM:<address>',
  rcptSyntax: '501 5.5.4 Syntax: RCPT TO:<address>',
  ok: '250 2.0.0 Ok',
  bye: '221 2.0.0 Bye',
  vrfyDisabled: '502 5.5.1 VRFY command is disabled',
  authDisabled: '503 5.5.1 Error: authentication not enabled',
  notRecognized: '502 5.5.2 Error: command not recognized',
  notImplemented: '502 5.5.1 Error: command not implemented',
  lineTooLong: '500 5.5.0 Error: line too long',
} as const;

export function greeting(hostName: string, banner: string): string {
  return `220 ${hostName} ${banner}`;
}

export interface EhloOptions {
  hostName: string;
  pipelining: boolean;
  starttls: boolean;
}

export function ehloLines(options: EhloOptions): string[] {
  const keywords = [
    options.hostName,
    ...(options.pipelining ? ['PIPELINING'] : []),
    'SIZE 10240000',
    ...(options.starttls ? ['STARTTLS'] : []),
    'ENHANCEDSTATUSCODES',
    '8BITMIME',
    'SMTPUTF8',
  ];
  return keywords.map((keyword, i) => `250${i === keywords.length - 1 ? ' ' : '-'}${keyword}`);
}
