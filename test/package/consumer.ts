// A strict consumer importing every entry point of the packed voxsim (test/package/run.mjs
// type-checks it with moduleResolution node16 and bundler, skipLibCheck off, no @types/express).
import { createServer } from 'node:http';
import { createSimulator, VERSION, type Assistant, type CreateCampaignRequest, type PostCallWebhook, type SimEvent } from 'voxsim';
import { handlers, runtimeProblem } from 'voxsim/msw';
import { createApp, createHttpServer, middleware, type VoxsimMiddleware } from 'voxsim/express';
import { apiClient, test, type VoxsimFixtures } from 'voxsim/vitest';

const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
// @ts-expect-error 'sipp' is not a number type
sim.control.phoneNumbers.add({ account_id: 1, type: 'sipp', phone_number: '+14155550100' });

const mswHandlers: unknown[] = handlers(sim, { baseUrl: 'https://api.example.test/api' });
const problem: string | null = runtimeProblem(process.versions.node, '3.0.0');
const mounted: VoxsimMiddleware = middleware(sim, { basePath: '/api' });
const server = createHttpServer(createApp(sim, { basePath: '/api' }));
const plain = createServer(createApp(sim));
const campaign: CreateCampaignRequest = { name: 'Spring', assistant_id: 1 };
const fixtures: (keyof VoxsimFixtures)[] = ['sim', 'server', 'api', 'baseUrl', 'simulatorOptions'];
const api = apiClient('https://api.example.test/api');

async function typed(): Promise<void> {
  const created = await api.post<{ data: Assistant }>('/user/assistant', {});
  const id: number = created.body.data.id;
  const hook: PostCallWebhook | undefined = undefined;
  const events: SimEvent[] = [];
  void [id, hook, events];
}

test('a fixture test type-checks', async ({ sim: fresh, api: client }) => {
  await client.get('/user/me');
  fresh.reset();
});

void [VERSION, mswHandlers, problem, mounted, server, plain, campaign, fixtures, typed];
