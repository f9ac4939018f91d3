/** The files one can download (live-platform H.7): public, no key, one route for every kind. */
import * as z from 'zod';
import { documentedAs } from '../../core/documented.js';
import { defineRoute, type RouteDef } from '../../core/http.js';
import type { RouteCtx } from '../routing.js';
import { serveFile } from './service.js';

const FILE = documentedAs(z.string(), { media: ['image/png', 'video/mp4', 'audio/mpeg', 'application/pdf'], description: 'The file, or the part a Range header asks for (206).' });

export const fileRoutes: RouteDef<RouteCtx>[] = [
  defineRoute<RouteCtx>({
    method: 'GET', path: '/files/:scope/:ref/:name', family: 'management', auth: 'none', responses: () => ({ 200: FILE, 206: FILE }),
    handle: ({ ctx, request, params }) => serveFile(ctx.state, request, { scope: params.scope!, ref: params.ref!, name: params.name! }),
  }),
];
