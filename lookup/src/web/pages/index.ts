import type { LookupPage } from '../page.ts';
import { homePage } from './home.ts';
import { keyPage, keySend } from './key.ts';
import { searchPage } from './search.ts';
import { TOOL_PAGES } from './tool.ts';
import { validatePage } from './validate.ts';

// Every lookup page, in one list (mount.ts mounts them at the root, before the API's routes).
export const LOOKUP_PAGES: readonly LookupPage[] = [homePage, searchPage, keyPage, keySend, validatePage, ...TOOL_PAGES];
