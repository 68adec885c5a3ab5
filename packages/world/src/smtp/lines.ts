// Splits an SMTP byte stream into command lines.
// Only CRLF ends a line (RFC 5321 §2.3.8): a bare CR or LF stays inside the recorded line, which is
// exactly what tests need to see when they check a client for CR/LF injection.
const CRLF = Buffer.from('\r\n');

export const MAX_LINE_BYTES = 64 * 1024;

export class LineSplitter {
  private buffered: Buffer = Buffer.alloc(0);

  // Returns complete lines; `overflow` is true once a line grows past MAX_LINE_BYTES without a CRLF.
  push(chunk: Buffer): { lines: string[]; overflow: boolean } {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const lines: string[] = [];
    let index = this.buffered.indexOf(CRLF);
    while (index !== -1) {
      lines.push(this.buffered.subarray(0, index).toString('utf8'));
      this.buffered = this.buffered.subarray(index + 2);
      index = this.buffered.indexOf(CRLF);
    }
    return { lines, overflow: this.buffered.length > MAX_LINE_BYTES };
  }

  clear(): void {
    this.buffered = Buffer.alloc(0);
  }
}
