// SMTP reply rule table for RCPT (and catch-all probe) replies. Ordered: the first row whose every
// condition holds decides. Order matters in four places:
//  - policy wording ("blocked", "Spamhaus", "reputation", "banned"...) is tested before anything
//    that could read as "no such mailbox": a block of OUR IP must never make an address
//    undeliverable (it says nothing about the mailbox);
//  - harvest-defence wording ("too many invalid recipients") and provider block codes (Outlook.com
//    SC-/DY-/OU-/RP-, AOL RTR:/RLY:/DYN:, Yahoo [TSS09]) come before the mailbox rows too: such a
//    reply mentions "invalid recipient" or even carries 5.1.1, yet says our session or IP is
//    refused, and every later address of the session would otherwise be called undeliverable;
//  - rate wording beats mailbox wording on 5xx as well (some servers rate-limit with 550);
//  - throttling wording ("server busy", "rate") before greylisting ("try again later");
//  - the enhanced code before the greylisting words: X.3.0/X.3.1/X.3.5 (the receiving mail system's
//    own trouble) and X.4.x (its network and routing) worded "try again later" are a broken
//    server, which gets the short ladder; 4.7.x and 4.2.0 with those words stay greylisting, and
//    postscreen's 450 4.3.2 (no such words) keeps its fallback row; a bare code has only its words;
//  - relay refusals before 5.4.1 and 5.7.x, which they share codes with.
// The last rows are code-class fallbacks, so every reply gets a class.
import type { ReplyRule } from '../reply-types.ts';

const POLICY_WORDS =
  /spamhaus|spamcop|sorbs|barracudacentral|uceprotect|spamrats|mailspike|abuseat|\bpsbl\b|\brbl\b|dnsbl|\bblock(ed|ing)?\b|block ?list|black ?list(ed)?|banned|reputation|\bis (black)?listed\b|listed (at|on|by) [a-z0-9-]+\.[a-z0-9.-]+|client host .*rejected|helo command rejected|sender address rejected|sender verify failed|not allowed to send/i;

// Directory-harvest defences: the server counts our rejected RCPTs and refuses the rest of the
// session (Postfix smtpd_hard_error_limit, Exchange tarpitting, IronPort DHAP, Barracuda). Never
// "too many recipients" (X.5.3, a per-session RCPT cap), which has its own rows.
const HARVEST_WORDS =
  /too many (invalid|unknown|bad|failed|rejected|unverified|wrong|non-?existent|non-?existing) (recipients?|rcpts?|users|addresses|mailboxes)|too many (recipient |rcpt )?(errors|rejects|rejections|failures)|(directory|dictionary|address) harvest|harvest(ing)? (attack|attempt|protection)|\bDHA\b|dictionary attack|namespace mining|recipient (validation|verification) limit/i;

// Provider codes that name a block or a rate limit whatever the rest of the text says: Outlook.com
// RP- (rate, reputation), SC- (policy, namespace mining), DY- (dynamic IP), OU- (blocked);
// AOL RTR:/RLY:/DYN:/HVU:/IPTS: (in "(RTR:BL)" form); Yahoo [TSnn]/[TSSnn]/[GLnn]/[BLnn].
const PROVIDER_CODES = /\b(RP|SC|DY|OU)-00\d\b|\b(RTR|RLY|DYN|HVU|IPTS):[A-Z0-9]{1,4}\b|\[(TSS?|GL|BL)\d{2}\]/i;

const RATE_WORDS =
  /rate.?limit|too many (connections|sessions|concurrent|messages|mails|emails)|unexpected volume|temporarily deferred|deferred due to|server busy|try again in \d|throttl|sending rate|too fast|received this hour/i;

export const REPLY_RULES: readonly ReplyRule[] = [
  { id: 'accepted', class: 'accepted', code: /^25[01]$/, why: 'RFC 5321: 250 OK, 251 will forward' },
  { id: 'cannot-vrfy', class: 'will_not_verify', code: /^252$/, why: '252: cannot verify the user, will accept and attempt delivery' },
  { id: 'policy-wording', class: 'policy_blocked', code: /^[45]/, text: POLICY_WORDS, why: 'DNSBL / reputation / block of our IP or identity: never mailbox_absent' },
  // 421 is left to the too-many-errors / throttle-421 rows: the scheduler learns a host's error budget by that row's id.
  { id: 'harvest-4xx', class: 'throttled', code: /^4(?!21)\d\d$/, text: HARVEST_WORDS, why: 'harvest defence deferring us ("451 4.7.1 Too many invalid recipients, try again later"): slow down' },
  { id: 'harvest-5xx', class: 'policy_blocked', code: /^5/, text: HARVEST_WORDS, why: 'harvest defence refusing us ("550 5.7.1 Too many invalid recipients"): a block, never a missing mailbox' },
  { id: 'provider-code-4xx', class: 'throttled', code: /^4/, text: PROVIDER_CODES, why: 'Outlook.com RP-001, AOL DYN:T1, Yahoo [TS01]/[GL01]: deferrals of our IP' },
  { id: 'provider-code-5xx', class: 'policy_blocked', code: /^5/, text: PROVIDER_CODES, why: 'Outlook.com SC-/DY-/OU-/RP-, AOL (RTR:BL), Yahoo [TSS09]: refusals of our IP' },
  { id: 'too-many-recipients', class: 'too_many_recipients', code: /^[45]/, enhanced: /^[45]\.5\.3$/, why: 'RFC 3463 X.5.3 too many recipients (Outlook 452 4.5.3)' },
  {
    id: 'too-many-recipients-text',
    class: 'too_many_recipients',
    code: /^[45]/,
    // IronPort's "452 Too many recipients received this hour" is an hourly rate, not a session cap.
    text: /too many recipients(?! received this hour)/i,
    why: 'servers without enhanced codes',
  },
  { id: 'mailbox-full', class: 'mailbox_full', code: /^[45]/, enhanced: /^[45]\.2\.2$/, why: 'RFC 3463 X.2.2 mailbox full (Gmail 452 4.2.2, 552 5.2.2)' },
  {
    id: 'mailbox-full-text',
    class: 'mailbox_full',
    code: /^[45]/,
    text: /mailbox (is )?full|over ?quota|quota exceeded|exceeded (the |its |their )?(storage|quota)|mailbox size limit/i,
    why: 'quota wording without X.2.2',
  },
  { id: 'recipient-rate', class: 'temporary_other', code: /^4/, enhanced: /^4\.2\.1$/, why: 'Gmail 4.2.1: the recipient receives too fast; not about us' },
  {
    id: 'too-many-errors',
    class: 'throttled',
    code: /^421$/,
    text: /too many (errors|(bad|invalid|unknown|failed|rejected) (recipients|rcpts?|addresses|commands))/i,
    why: 'directory-harvest defence closing this connection (Postfix smtpd_hard_error_limit, Exchange "Too many errors on this connection"): a throttle of the connection, not a verdict; the scheduler resends what it left unanswered and learns the error budget by this id',
  },
  { id: 'throttle-421', class: 'throttled', code: /^421$/, why: '421 closes the channel: rate limits and connection caps (Gmail 4.7.0, Yahoo TSS04)' },
  {
    id: 'throttle-text',
    class: 'throttled',
    code: /^4/,
    text: RATE_WORDS,
    why: 'rate and volume wording on any 4xx',
  },
  { id: 'throttle-enhanced', class: 'throttled', code: /^4/, enhanced: /^4\.7\.(28|[56]\d\d)$/, why: 'Gmail 4.7.28 rate limit; Microsoft 4.7.500-699 throttling' },
  { id: 'throttle-5xx-text', class: 'throttled', code: /^5/, text: RATE_WORDS, why: 'a rate limit sent as 5xx is still a rate limit: it says nothing about the mailbox' },
  {
    id: 'receiving-system-trouble',
    class: 'temporary_other',
    code: /^4/,
    enhanced: /^4\.3\.[015]$|^4\.4\.\d{1,3}$/,
    why: 'RFC 3463 X.3.0 mail system trouble, X.3.1 system full, X.3.5 misconfigured, X.4.x network or routing (Postfix 451 4.3.0 "Temporary lookup failure, please try again later"): not greylisting, whatever the words',
  },
  {
    id: 'greylisted',
    class: 'greylisted',
    code: /^4/,
    text: /gr[ae]y.?list|try (again )?later|come back later|please retry|retry later|retry in a (few|couple)/i,
    why: 'greylisting (postgrey 450 4.2.0, 451 4.7.1 "try again later")',
  },
  {
    id: 'unverified-downstream-absent',
    class: 'mailbox_absent',
    code: /^4/,
    text: /unverified address.*(user unknown|does not exist|no such user|5\.1\.1)/i,
    why: 'Postfix reject_unverified_recipient reporting the next hop\'s 550 5.1.1',
  },
  {
    id: 'relay-denied',
    class: 'permanent_other',
    code: /^5/,
    text: /relay(ing)? (access )?(denied|not permitted|prohibited)|not permitted to relay|unable to relay|relay not permitted|do not relay|as a relay|allowed rcpthosts/i,
    why: 'the MX does not accept mail for this domain: says nothing about the mailbox',
  },
  { id: 'host-accepts-no-mail', class: 'permanent_other', code: /^(521|556)$/, why: 'RFC 7504: host does not accept mail' },
  {
    id: 'absent-enhanced',
    class: 'mailbox_absent',
    code: /^5/,
    enhanced: /^5\.1\.(1|6|10)$|^5\.2\.1$|^5\.4\.1$/,
    why: '5.1.1 bad mailbox, 5.1.6 moved, 5.1.10 Microsoft RecipientNotFound, 5.2.1 disabled, 5.4.1 Microsoft directory-based edge blocking',
  },
  { id: 'absent-ironport-ldap', class: 'mailbox_absent', code: /^5/, enhanced: /^5\.1\.0$/, text: /^address rejected/i, why: 'Cisco IronPort LDAP accept query: "#5.1.0 Address rejected"' },
  {
    id: 'absent-text',
    class: 'mailbox_absent',
    code: /^5/,
    text: /user unknown|unknown user|no such (user|mailbox|recipient|address|account|person)|(user|mailbox|recipient|address|account)( name)? (does not|doesn't|not) exist|doesn't have an? .*account|mailbox (is )?unavailable|mailbox not found|recipient not found|unknown (recipient|mailbox|address)|invalid (recipient|mailbox|address)|not a valid (mailbox|recipient|user)|user not found|(account|mailbox|address) (is |has been )?(disabled|deactivated|inactive|suspended|closed|terminated)|no mailbox|unrouteable address|addressee unknown|not our customer|user not listed in/i,
    why: 'no-such-mailbox wording (Exim "No such user here", Yahoo "dd This user doesn\'t have a yahoo.com account")',
  },
  { id: 'policy-enhanced', class: 'policy_blocked', code: /^5/, enhanced: /^5\.7\.\d{1,3}$/, why: 'RFC 3463 5.7.x security or policy status (Proofpoint "5.7.1 Command rejected")' },
  {
    id: 'policy-text',
    class: 'policy_blocked',
    code: /^5/,
    text: /administrative prohibition|access denied|not authori[sz]ed|refused|spam|policy|rejected for policy/i,
    why: 'policy wording without 5.7.x',
  },
  { id: 'policy-554', class: 'policy_blocked', code: /^554$/, why: '554 without other signal: transaction refused' },
  { id: 'fallback-2xx', class: 'accepted', code: /^2/, why: 'other 2xx' },
  { id: 'fallback-4xx', class: 'temporary_other', code: /^4/, why: 'other transient failure' },
  { id: 'fallback-5xx', class: 'permanent_other', code: /^5/, why: 'other permanent failure: not proof the mailbox is absent' },
  { id: 'fallback-other', class: 'temporary_other', why: 'not a valid RCPT reply code' },
];
