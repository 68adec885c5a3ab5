// What one query/reply exchange needs and produces, shared by the UDP pool and the TCP path.
import type { DecodedMessage } from './wire.ts';
import type { UpstreamServer } from './servers.ts';
import type { RrType } from './types.ts';
import { RR_TYPE } from './types.ts';

export interface ExchangeRequest {
  server: UpstreamServer;
  name: string;
  type: RrType;
  timeoutMs: number;
  /** Builds the query for the transaction id the transport picked. */
  encode: (id: number) => Buffer;
}

export type ExchangeOutcome =
  | { kind: 'reply'; message: DecodedMessage }
  | { kind: 'timeout' }
  | { kind: 'error'; error: string };

/** A reply answers our query only if it is a response to the very question we asked. */
export function answersQuestion(message: DecodedMessage, name: string, type: RrType): boolean {
  return (
    message.qr &&
    message.opcode === 0 &&
    message.question.class === 1 &&
    message.question.type === RR_TYPE[type] &&
    message.question.name.toLowerCase() === name.toLowerCase()
  );
}
