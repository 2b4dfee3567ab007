import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults } from '../helpers/model-script.js';
import { createUser } from '../reminders/support.js';

/**
 * ui-agent end to end: texts through the signed webhook, scripted model turns, render_page
 * on real Postgres, the SMS Twilio receives, and the page that link opens.
 */


const LINK = /^https:\/\/herald\.test\/p\/[A-Za-z0-9_-]{43}$/;

describe('ui-agent through the webhook', () => {
  let harness: HeraldHarness;
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(6100 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  async function send(body: string): Promise<string> {
    expect((await harness.inbound({ from: phone, body })).statusCode).toBe(200);
    const [reply] = await harness.replies(1);
    harness.anthropic.rethrowScriptErrors();
    return reply!.body ?? '';
  }

  const open = (link: string) => harness.herald.app.inject({ method: 'GET', url: new URL(link).pathname });

  it('"show my lists": lists gathered, a page of tickable checklists made, and the SMS is one line and the link, even when the composer drops it', async () => {
    await harness.herald.lists.addItems(userId, 'shopping', ['milk', 'eggs']);
    await harness.herald.lists.addItems(userId, 'packing', ['passport']);
    let link = '';
    harness.anthropic.enqueue(
      (request) => {
        // The planner is told what ui-agent is for, and when to use it.
        expect(request.systemText()).toContain('<agent name="ui-agent">');
        expect(request.systemText()).toContain('becomes a page');
        return {
          toolCalls: [
            {
              name: 'create_plan',
              input: {
                analysis: 'Several lists: a page',
                goal: 'Show the user their lists on a page',
                steps: [
                  { id: 'step_1', agent: 'list-agent', task: "Get all of the user's lists" },
                  { id: 'step_2', agent: 'ui-agent', task: "Make a page with each of the user's lists as a checklist", dependsOn: ['step_1'] },
                ],
              },
            },
          ],
        };
      },
      { toolCalls: [{ name: 'get_lists', input: {} }] },
      (request) => {
        const { lists } = JSON.parse(lastToolResults(request)[0]!.content) as { lists: unknown };
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Two lists: shopping, packing', data: { lists } } }] };
      },
      (request) => {
        expect(request.toolNames()).toEqual(['render_page', 'delete_page', 'complete_step']);
        // Earlier steps' results reach the page agent; the profile form is offered by id.
        expect(request.allText()).toContain('passport');
        const renderPage = (request.body.tools as Array<{ name: string; input_schema: unknown }>).find((tool) => tool.name === 'render_page')!;
        expect(JSON.stringify(renderPage.input_schema)).toContain('"enum":["profile","routines"]');
        return {
          toolCalls: [
            {
              name: 'render_page',
              input: { title: 'Your lists', language: 'en', sections: [{ kind: 'checklist', list: 'shopping' }, { kind: 'checklist', heading: 'Packing', list: 'packing' }] },
            },
          ],
        };
      },
      (request) => {
        const [result] = lastToolResults(request);
        expect(result!.isError).toBe(false);
        const made = JSON.parse(result!.content) as { effect: string; link: string; title: string; notes: string[] };
        expect(made).toMatchObject({ effect: 'created', title: 'Your lists', notes: [] });
        link = made.link;
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Made a page with 2 checklists', created: [{ description: 'page "Your lists"' }], data: { link } } }] };
      },
      // The composer forgets the link: Herald adds the one render_page returned.
      { text: 'Here are your lists.' },
    );

    const reply = await send('show me my lists');
    expect(link).toMatch(LINK);
    expect(reply).toBe(`Here are your lists.\n${link}`);
    expect(harness.anthropic.requests).toHaveLength(6);

    const page = await open(link);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Your lists</h1>');
    expect(page.body).toMatch(/<span>milk<\/span>[\s\S]*<span>eggs<\/span>[\s\S]*<h2 id="s1">Packing<\/h2>[\s\S]*<span>passport<\/span>/);
  });

  it('one ui-agent step writing its own reply: the reply is sent as written; an oversized page is cut with a note', async () => {
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'long', goal: 'Show the ideas as a page', steps: [{ id: 'step_1', agent: 'ui-agent', task: 'A page listing 1000 name ideas' }] } }] },
      { toolCalls: [{ name: 'render_page', input: { title: 'Name ideas', sections: [{ kind: 'list', heading: 'Ideas', items: Array.from({ length: 1000 }, (_, index) => `Idea ${index + 1}`) }] } }] },
      (request) => {
        const made = JSON.parse(lastToolResults(request)[0]!.content) as { link: string; notes: string[] };
        expect(made.notes).toEqual(['“Ideas”: showing the first 300 of 1000 items.']);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Page made', reply: `Your ideas:\n${made.link}`, created: [{ description: 'page' }], data: { link: made.link } } }] };
      },
    );
    const reply = await send('give me 1000 name ideas');
    const [line, link] = reply.split('\n');
    expect(line).toBe('Your ideas:');
    expect(link).toMatch(LINK);
    expect(harness.anthropic.requests).toHaveLength(3);
    const page = await open(link!);
    expect(page.body).toContain('This page was shortened. “Ideas”: showing the first 300 of 1000 items.');
    expect(page.body).toContain('<li>Idea 300</li>');
    expect(page.body).not.toContain('<li>Idea 301</li>');
  });

  it('"delete that page": delete_page revokes the newest page at once', async () => {
    const made = await harness.herald.pages.create(userId, 'UTC', { title: 'Week', sections: [{ kind: 'text', markdown: 'Busy' }] });
    if (!made.ok) throw new Error(made.error);
    expect((await open(made.value.link)).statusCode).toBe(200);
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'revoke', goal: 'Delete the last page', steps: [{ id: 'step_1', agent: 'ui-agent', task: 'Delete the most recent page' }] } }] },
      { toolCalls: [{ name: 'delete_page', input: {} }] },
      (request) => {
        expect(JSON.parse(lastToolResults(request)[0]!.content)).toEqual({ effects: { created: 0, updated: 0, deleted: 1 }, deleted: ['Week'] });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Deleted', reply: 'Done: that page is gone.', deleted: [{ description: 'page "Week"' }] } }] };
      },
    );
    expect(await send('delete that page')).toBe('Done: that page is gone.');
    const gone = await open(made.value.link);
    expect(gone.statusCode).toBe(404);
    expect(gone.body).toContain('Page not found');
  });

  it('a page agent that claims a page it never made fails verification (no link is invented)', async () => {
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'x', goal: 'Show the packing list', steps: [{ id: 'step_1', agent: 'ui-agent', task: 'Page of the packing list' }] } }] },
      { toolCalls: [{ name: 'render_page', input: { title: 'Packing', sections: [{ kind: 'checklist', list: 'packing' }] } }] },
      (request) => {
        expect(lastToolResults(request)[0]).toEqual({ isError: true, content: 'There is no "packing" list. Lists: none. No page was made.' });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Made it', reply: 'Here: https://herald.test/p/made-up', created: [{ description: 'page' }] } }] };
      },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'No packing list', needsClarification: true, question: "You don't have a packing list yet. Want me to start one?" } }] },
    );
    expect(await send('show my packing list')).toBe("You don't have a packing list yet. Want me to start one?");
    expect(await harness.database.prisma.page.count({ where: { userId } })).toBe(0);
  });
});
