// Builds a ScanOutcome field by field: each field is set once with whether a confirmed answer
// supports it. A field whose lookups failed keeps what was learnt (often null) and is listed in
// `unconfirmed`, so change history never reads a failure as an empty value.
import type { ScanField, ScanObservation } from '@dv/contracts';

type Values = Omit<ScanObservation, 'scanned_at'>;

export class OutcomeBuilder {
  readonly #values: Partial<Values> = {};
  readonly #unconfirmed = new Set<ScanField>();

  set<F extends ScanField>(field: F, value: Values[F], confirmed = true): void {
    this.#values[field] = value;
    if (!confirmed) this.#unconfirmed.add(field);
  }

  /** Several fields resting on the same lookups. */
  setAll(values: Partial<Values>, confirmed: boolean): void {
    for (const [field, value] of Object.entries(values) as [ScanField, Values[ScanField]][]) this.set(field, value, confirmed);
  }

  finish(scannedAt: Date, fields: readonly ScanField[]): { observation: ScanObservation; unconfirmed: ScanField[] } {
    const missing = fields.filter((f) => !(f in this.#values));
    // Every field is decided on purpose; a forgotten one is a bug, not a null.
    if (missing.length > 0) throw new Error(`scan left fields unset: ${missing.join(', ')}`);
    return {
      observation: { scanned_at: scannedAt, ...(this.#values as Values) },
      unconfirmed: fields.filter((f) => this.#unconfirmed.has(f)),
    };
  }
}
