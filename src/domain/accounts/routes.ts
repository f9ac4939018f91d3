/** `GET /user/me` (decisions: Account). */
import { ok } from '../../core/http.js';
import { userRoute } from '../routing.js';
import { MeRecord, serialiseMe } from './schema.js';

export const accountRoutes = [
  userRoute({ method: 'GET', path: '/user/me', responses: () => ({ 200: MeRecord }), handle: ({ ctx }) => ok(serialiseMe(ctx.account)) }),
];
