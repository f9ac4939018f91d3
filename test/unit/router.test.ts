import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { SimError, shapeA } from '../../src/core/errors.js';
import { Router, defineRoute, header, ok, pathSegments, type RouteDef, type RouterHooks, type SimRequest } from '../../src/core/http.js';
import { pageQuery } from '../../src/core/pagination.js';
import { str } from '../../src/core/validation.js';

type Ctx = Record<string, never>;

const NameBody = z.object({ name: str(255) });
const MessageBody = z.object({ message: str(1000) });

const ROUTES: RouteDef<Ctx>[] = [
  defineRoute<Ctx>({
    method: 'GET',
    path: '/things/:id',
    family: 'management',
    auth: 'none',
    handle: ({ params, query, request }) => ok({ id: params.id, query: request.query ?? {}, parsed: query ?? null }),
  }),
  defineRoute<Ctx>({ method: 'DELETE', path: '/things/:id', family: 'management', auth: 'none', handle: ({ params }) => ok({ deleted: params.id }) }),
  defineRoute<Ctx, z.infer<typeof NameBody>>({
    method: 'POST',
    path: '/things',
    family: 'management',
    auth: 'none',
    body: NameBody,
    handle: ({ body }) => ok({ created: body.name }, 201),
  }),
  defineRoute<Ctx, unknown, z.infer<ReturnType<typeof pageQuery>>>({
    method: 'GET',
    path: '/things',
    family: 'management',
    auth: 'none',
    query: pageQuery(15),
    handle: ({ query }) => ok(query),
  }),
  defineRoute<Ctx, z.infer<typeof MessageBody>>({
    method: 'POST',
    path: '/chat/:assistant/send',
    family: 'chat',
    auth: 'none',
    body: MessageBody,
    handle: ({ params, body }) => ok({ status: true, assistant: params.assistant, echo: body.message }),
  }),
  defineRoute<Ctx, z.infer<typeof MessageBody>>({
    method: 'POST',
    path: '/messaging/send',
    family: 'messaging',
    auth: 'none',
    body: MessageBody,
    handle: ({ body }) => ok({ success: true, echo: body.message }),
  }),
  defineRoute<Ctx>({
    method: 'GET',
    path: '/limited',
    family: 'management',
    auth: 'none',
    handle: () => {
      throw new SimError(429, { message: 'Too Many Attempts.' }, { 'retry-after': '60' });
    },
  }),
  defineRoute<Ctx>({
    method: 'GET',
    path: '/missing',
    family: 'management',
    auth: 'none',
    handle: async () => {
      await Promise.resolve();
      throw shapeA(404, 'Thing not found.');
    },
  }),
  defineRoute<Ctx>({
    method: 'GET',
    path: '/boom',
    family: 'management',
    auth: 'none',
    handle: () => {
      throw new TypeError('cannot read properties of undefined');
    },
  }),
  defineRoute<Ctx>({ method: 'GET', path: '/private', family: 'management', auth: 'bearer', handle: () => ok({ secret: true }) }),
];

/** A router over the tiny route table; `hooks` replaces the default ones. */
function router(hooks: Partial<RouterHooks<Ctx>> = {}): Router<Ctx> {
  return new Router<Ctx>(ROUTES, {
    context: (request, route) => {
      if (route.auth === 'bearer' && !header(request, 'authorization')) throw shapeA(401, 'Unauthenticated.');
      return {};
    },
    ...hooks,
  });
}

const send = (request: SimRequest, r = router()) => r.handle(request);

describe('Router matching', () => {
  it('passes path parameters to the handler', async () => {
    const res = await send({ method: 'GET', path: '/things/42' });
    expect(res).toEqual({ status: 200, body: { id: '42', query: {}, parsed: null } });
  });

  it('decodes percent-encoded path parameters', async () => {
    const res = await send({ method: 'GET', path: '/things/a%20b' });
    expect(res.body).toMatchObject({ id: 'a b' });
  });

  it('ignores a trailing slash', async () => {
    const res = await send({ method: 'GET', path: '/things/42/' });
    expect(res).toEqual({ status: 200, body: { id: '42', query: {}, parsed: null } });
  });

  it('matches the method case-insensitively', async () => {
    const res = await send({ method: 'delete', path: '/things/7' });
    expect(res).toEqual({ status: 200, body: { deleted: '7' } });
  });

  it('moves a query string written in the path into query', async () => {
    const res = await send({ method: 'GET', path: '/things/42?page=2&tag=a&tag=b' });
    expect(res.body).toEqual({ id: '42', query: { page: '2', tag: ['a', 'b'] }, parsed: null });
  });

  it('merges a query string in the path with the given query', async () => {
    const res = await send({ method: 'GET', path: '/things/42?tag=b', query: { tag: 'a', sort: 'asc' } });
    expect(res.body).toEqual({ id: '42', query: { tag: ['a', 'b'], sort: 'asc' }, parsed: null });
  });

  it('parses the query with the route schema', async () => {
    const res = await send({ method: 'GET', path: '/things?per_page=50' });
    expect(res).toEqual({ status: 200, body: { page: 1, per_page: 50 } });
  });

  it('answers an unknown route with 404 naming the route', async () => {
    const res = await send({ method: 'GET', path: '/x/y' });
    expect(res).toEqual({ status: 404, body: { message: 'The route x/y could not be found.' } });
  });

  it('answers a path with too many segments with 404', async () => {
    const res = await send({ method: 'GET', path: '/things/1/extra' });
    expect(res).toEqual({ status: 404, body: { message: 'The route things/1/extra could not be found.' } });
  });

  it('answers a known path with another method with 405 and an allow header', async () => {
    const res = await send({ method: 'PUT', path: '/things/42' });
    expect(res).toEqual({
      status: 405,
      headers: { allow: 'GET, DELETE' },
      body: { message: 'The PUT method is not supported for route things/42. Supported methods: GET, DELETE.' },
    });
  });
});

describe('Router bodies', () => {
  it('passes the parsed body to the handler', async () => {
    const res = await send({ method: 'POST', path: '/things', body: '{"name":"Widget","extra":1}' });
    expect(res).toEqual({ status: 201, body: { created: 'Widget' } });
  });

  it('answers malformed JSON on a management route with 400 {message}', async () => {
    const res = await send({ method: 'POST', path: '/things', body: '{"name":' });
    expect(res).toEqual({ status: 400, body: { message: 'Malformed JSON in request body.' } });
  });

  it('answers malformed JSON on a chat route with 400 {status:false, error}', async () => {
    const res = await send({ method: 'POST', path: '/chat/9/send', body: '{oops' });
    expect(res).toEqual({ status: 400, body: { status: false, error: 'Malformed JSON in request body.' } });
  });

  it('answers malformed JSON on a messaging route with 400 {success:false, error, error_code}', async () => {
    const res = await send({ method: 'POST', path: '/messaging/send', body: 'not json' });
    expect(res).toEqual({ status: 400, body: { success: false, error: 'Malformed JSON in request body.', error_code: 'VALIDATION_ERROR' } });
  });

  it.each(['[1,2]', '"text"', '42', 'null'])('answers the JSON body %s that is not an object with 400', async (body) => {
    const res = await send({ method: 'POST', path: '/things', body });
    expect(res).toEqual({ status: 400, body: { message: 'The request body must be a JSON object.' } });
  });

  it('treats an empty body as an empty object', async () => {
    const res = await send({ method: 'POST', path: '/things', body: '' });
    expect(res).toEqual({ status: 422, body: { message: 'The name field is required.', errors: { name: ['The name field is required.'] } } });
  });

  it('answers a body that fails validation with 422 shape B', async () => {
    const res = await send({ method: 'POST', path: '/things', body: JSON.stringify({ name: 'x'.repeat(256) }) });
    expect(res).toEqual({
      status: 422,
      body: { message: 'The name may not be greater than 255 characters.', errors: { name: ['The name may not be greater than 255 characters.'] } },
    });
  });

  it('answers a chat body that fails validation in the chat shape', async () => {
    const res = await send({ method: 'POST', path: '/chat/9/send', body: '{}' });
    expect(res).toEqual({ status: 422, body: { status: false, error: 'The message field is required.' } });
  });

  it('answers a query that fails validation with 422 shape B', async () => {
    const res = await send({ method: 'GET', path: '/things', query: { per_page: '101' } });
    expect(res).toEqual({ status: 422, body: { message: 'The per page must be between 1 and 100.', errors: { per_page: ['The per page must be between 1 and 100.'] } } });
  });

  it('does not call the handler or beforeHandle when validation fails', async () => {
    const beforeHandle = vi.fn();
    await send({ method: 'POST', path: '/things', body: '{}' }, router({ beforeHandle }));
    expect(beforeHandle).not.toHaveBeenCalled();
  });
});

describe('Router failures', () => {
  it('answers a SimError thrown by a handler with its status, body and headers', async () => {
    const res = await send({ method: 'GET', path: '/limited' });
    expect(res).toEqual({ status: 429, headers: { 'retry-after': '60' }, body: { message: 'Too Many Attempts.' } });
  });

  it('answers a SimError from an async handler without a headers member', async () => {
    const res = await send({ method: 'GET', path: '/missing' });
    expect(res).toEqual({ status: 404, body: { message: 'Thing not found.' } });
  });

  it('answers a SimError thrown by the context hook', async () => {
    const res = await send({ method: 'GET', path: '/private' });
    expect(res).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
  });

  it('answers any other exception with 500 Server Error. and no details', async () => {
    const res = await send({ method: 'GET', path: '/boom' });
    expect(res).toEqual({ status: 500, body: { message: 'Server Error.' } });
  });

  it('hands an unexpected exception and the request to onError', async () => {
    const onError = vi.fn();
    await send({ method: 'GET', path: '/boom' }, router({ onError }));
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, request] = onError.mock.calls[0] as [unknown, SimRequest];
    expect(error).toBeInstanceOf(TypeError);
    expect(request).toMatchObject({ method: 'GET', path: '/boom' });
  });

  it('does not call onError for a SimError', async () => {
    const onError = vi.fn();
    await send({ method: 'GET', path: '/limited' }, router({ onError }));
    expect(onError).not.toHaveBeenCalled();
  });

  it('answers a failure from beforeHandle', async () => {
    const beforeHandle = vi.fn(() => {
      throw shapeA(503, 'Service Unavailable.');
    });
    const res = await send({ method: 'GET', path: '/things/1' }, router({ beforeHandle }));
    expect(res).toEqual({ status: 503, body: { message: 'Service Unavailable.' } });
    expect(beforeHandle).toHaveBeenCalledWith(expect.objectContaining({ path: '/things/:id' }), expect.objectContaining({ path: '/things/1' }), {});
  });

  it('keeps serving after an unexpected exception', async () => {
    const r = router();
    await send({ method: 'GET', path: '/boom' }, r);
    const res = await send({ method: 'GET', path: '/things/5' }, r);
    expect(res).toEqual({ status: 200, body: { id: '5', query: {}, parsed: null } });
  });
});

describe('pathSegments', () => {
  it('drops empty segments and the query string', () => {
    expect(pathSegments('//user//assistant/1/?x=1')).toEqual(['user', 'assistant', '1']);
  });

  it('keeps a segment that is not valid percent-encoding as written', () => {
    expect(pathSegments('/things/%E0%A4%A')).toEqual(['things', '%E0%A4%A']);
  });
});

describe('header', () => {
  it('reads a header case-insensitively and takes the first of several values', () => {
    const request: SimRequest = { method: 'GET', path: '/', headers: { Authorization: 'Bearer k', 'X-Tag': ['a', 'b'] } };
    expect(header(request, 'authorization')).toBe('Bearer k');
    expect(header(request, 'x-tag')).toBe('a');
    expect(header(request, 'missing')).toBeUndefined();
  });
});
