import { defineHttpRoute } from '@dv/runtime';
import type { ApiCaller, ApiContext } from './context.ts';

/** The shared route helper (@dv/runtime route/) bound to this API's context and caller. */
export const defineRoute = defineHttpRoute<ApiContext, ApiCaller>();
export type { HttpRoute } from '@dv/runtime';
