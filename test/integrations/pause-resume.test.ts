import { rmSync } from 'node:fs';
import { describe, expect, onTestFinished, test } from 'vitest';
import { pauseDirectory, runPhase } from '../fixtures/agent-pause/phases.js';

// Two Node processes start, each compiling the fixture with tsx: more than the default 30 s on a busy machine.
const TWO_PROCESSES = { timeout: 120_000 };

interface Ran {
  readonly runs: string[];
  readonly pids: number[];
}

const alreadyUsed = { ok: false, error: { type: 'approval_already_used', tool: 'write_note' } };

describe('the AI SDK tool-approval flow across two processes', () => {
  for (const decision of ['allow', 'deny'] as const) {
    test(
      `approval requested in one process, ${decision === 'allow' ? 'approved' : 'denied'} in another: the write runs at most once`,
      TWO_PROCESSES,
      async () => {
        const dir = pauseDirectory();
        onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
        const first = await runPhase<{
          finishReason: string;
          modelCalls: number;
          requests: { approvalId: string; toolCallId: string }[];
          ran: Ran;
          pid: number;
        }>('ai-sdk', 'pause', dir);
        expect(first.requests).toEqual([{ approvalId: expect.any(String), toolCallId: 'w1' }]);
        expect(first.modelCalls).toBe(1);
        // The read of the same step ran; the write waits for the approval response.
        expect(first.ran).toEqual({ runs: ['read_note todo.md'], pids: [first.pid] });

        const second = await runPhase<{
          text: string[];
          sent: Record<string, { type: string; value?: string; reason?: string }>[];
          afterFirst: Ran;
          note: string;
          ran: Ran;
          pid: number;
        }>('ai-sdk', 'resume', dir, decision);
        expect(second.pid).not.toBe(first.pid);
        expect(second.text).toEqual(['Done.', 'Done again.']);
        const [sentFirst, sentAgain] = second.sent;
        // The read's result was carried in the saved messages, not produced again.
        expect(JSON.parse(sentFirst!.r1!.value!)).toEqual({ ok: true, result: 'buy milk' });
        if (decision === 'allow') {
          expect(JSON.parse(sentFirst!.w1!.value!)).toEqual({
            ok: true,
            result: { written: 'todo.md', chars: 9 },
          });
          expect(second.note).toBe('buy bread');
          expect(second.afterFirst).toEqual({
            runs: ['read_note todo.md', 'write_note todo.md'],
            pids: [first.pid, second.pid],
          });
          // The same approval response sent again in that process: the bridge refuses to run it twice.
          expect(sentAgain!.w1!.type).toBe('error-text');
          expect(JSON.parse(sentAgain!.w1!.value!)).toMatchObject(alreadyUsed);
        } else {
          expect(sentFirst!.w1).toEqual({ type: 'execution-denied', reason: 'the todo stays as it is' });
          expect(second.note).toBe('buy milk');
        }
        expect(second.ran).toEqual(second.afterFirst);
        expect(second.ran.runs.filter((run) => run.startsWith('write_note'))).toHaveLength(
          decision === 'allow' ? 1 : 0,
        );
      },
    );
  }
});

describe('the Agents SDK interruptions across two processes', () => {
  for (const decision of ['allow', 'deny'] as const) {
    test(
      `interrupted in one process, ${decision === 'allow' ? 'approved' : 'rejected'} after RunState.fromString in another: the write runs at most once`,
      TWO_PROCESSES,
      async () => {
        const dir = pauseDirectory();
        onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
        const first = await runPhase<{
          interruptions: { name: string; callId: string; arguments: string }[];
          modelCalls: number;
          ran: Ran;
          pid: number;
        }>('openai-agents', 'pause', dir);
        expect(first.interruptions).toEqual([
          { name: 'write_note', callId: 'w1', arguments: '{"name":"todo.md","text":"buy bread"}' },
        ]);
        expect(first.modelCalls).toBe(1);
        expect(first.ran).toEqual({ runs: ['read_note todo.md'], pids: [first.pid] });

        type Resumed = { interruptions: number; finalOutput: string; sent: Record<string, unknown> };
        const second = await runPhase<{
          first: Resumed;
          second: Resumed;
          afterFirst: Ran;
          note: string;
          ran: Ran;
          pid: number;
        }>('openai-agents', 'resume', dir, decision);
        expect(second.pid).not.toBe(first.pid);
        expect(second.first.interruptions).toBe(1);
        expect(second.first.finalOutput).toBe('Done.');
        expect(second.first.sent.r1).toEqual({ ok: true, result: 'buy milk' });
        if (decision === 'allow') {
          expect(second.first.sent.w1).toEqual({ ok: true, result: { written: 'todo.md', chars: 9 } });
          expect(second.note).toBe('buy bread');
          expect(second.afterFirst).toEqual({
            runs: ['read_note todo.md', 'write_note todo.md'],
            pids: [first.pid, second.pid],
          });
          // The same saved state approved and run again in that process: the bridge refuses the second run.
          expect(second.second.sent.w1).toMatchObject(alreadyUsed);
        } else {
          // The SDK's rejection message reaches the model in place of a result.
          expect(second.first.sent.w1).toBe('The todo stays as it is.');
          expect(second.note).toBe('buy milk');
          expect(second.afterFirst).toEqual({ runs: ['read_note todo.md'], pids: [first.pid] });
        }
        expect(second.ran).toEqual(second.afterFirst);
      },
    );
  }
});
