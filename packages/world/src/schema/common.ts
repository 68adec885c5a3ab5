// Field schemas shared by the DNS, SMTP and RDAP parts of a world file.
import { z } from 'zod';
import { isValidName, normalizeName } from '../names.ts';

export const dnsName = z
  .string()
  .transform(normalizeName)
  .refine(isValidName, { message: 'must be a domain name (letters, digits, "-", "_"; labels of 1-63 characters)' });

export const durationMs = z.number().int().nonnegative();

// Free text that lets a world file explain itself; JSON has no comments.
export const note = z.string().optional();
