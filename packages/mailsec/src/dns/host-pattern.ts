// Host-name rows of the detection tables (SPF senders, technologies, DKIM providers) match a
// whole label suffix, case-insensitively: "sendgrid.net" matches itself and any name under it,
// with or without the root dot, never "xsendgrid.net" or "sendgrid.net.evil.example".

/** A pattern for `suffix` and every name under it (suffix written plainly, dots and all). */
export function hostSuffix(suffix: string): RegExp {
  return new RegExp(`(?:^|\\.)${suffix.replace(/\./g, '\\.')}\\.?$`, 'i');
}
