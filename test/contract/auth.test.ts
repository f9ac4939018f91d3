import { expect, it } from 'vitest';
import { contract, KEY } from '../support/api.js';

// The 401 of every authenticated route, and the 400 of malformed or non-object JSON on
// every body route, are generated from the route table in routes.test.ts.

contract('authentication', (api) => {
  it('rejects a key sent without the Bearer scheme', async () => {
    const res = await api().get('/user/me', { key: null, headers: { authorization: KEY } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated.' });
  });

  it('accepts the scheme in any letter case', async () => {
    const res = await api().get('/user/me', { key: null, headers: { authorization: `bearer ${KEY}` } });
    expect(res.status).toBe(200);
  });

  it('shows the default account on GET /user/me', async () => {
    const res = await api().get('/user/me');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Voxsim Test Account', email: 'test@voxsim.test', total_balance: 100 });
  });

  it('shows the account of the key used on GET /user/me', async () => {
    api().sim.control.accounts.create({ name: 'Second Co', email: 'ops@second.test', api_key: 'sim_second_key', balance: 12.5 });
    const res = await api().get('/user/me', { key: 'sim_second_key' });
    expect(res.body).toEqual({ name: 'Second Co', email: 'ops@second.test', total_balance: 12.5 });
  });
});

contract('route-level errors', (api) => {
  it('answers an unknown route with 404 shape A', async () => {
    const res = await api().get('/user/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'The route user/nothing-here could not be found.' });
  });

  it('answers a known path with the wrong method with 405 and the allowed methods', async () => {
    const res = await api().get('/user/assistant');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body).toEqual({ message: 'The GET method is not supported for route user/assistant. Supported methods: POST.' });
  });

  it('answers a route that throws unexpectedly with 500 shape A and keeps serving', async () => {
    const sim = api().sim;
    // Break one table method to stand for an unexpected failure inside a service.
    (sim.db.assistants as unknown as { select: unknown }).select = () => {
      throw new Error('boom');
    };
    const failed = await api().get('/user/assistants/get');
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ message: 'Server Error.' });
    expect(failed.text).not.toContain('boom');
    const me = await api().get('/user/me');
    expect(me.status).toBe(200);
  });
});
