// The `lookup` handed to a socket bound for a vetted target.
//
// Contract: answers with the addresses `checkTarget` vetted and never asks DNS, so the name cannot
// resolve a second time to something else (DNS rebinding). A family the caller asks for is
// preferred when the target has one; otherwise every vetted address is offered.
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './target.ts';

type AllCallback = (err: null, addresses: { address: string; family: number }[]) => void;

export function pinnedLookup(target: Pick<CheckedTarget, 'addresses'>): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? target.addresses.filter((a) => a.family === options.family) : target.addresses;
    const list = wanted.length > 0 ? wanted : target.addresses;
    if (options.all) (callback as AllCallback)(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
}
