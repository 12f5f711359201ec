import { type AgentResult, runAgent } from '../../agent/index.js';
import type { AuditSink } from '../../audit/audit-sink.js';
import type { GateDecision } from '../../dispatch/gate.js';
import { createPolicyGate } from '../../policy/policy-gate.js';
import { type CallRecord, Registry } from '../../registry/registry.js';
import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import { choosePolicy, openAuditOption } from '../gate-options.js';
import type { CliIo, Command, ExitCode } from '../io.js';
import { UsageError } from '../io.js';
import { closeWithin, ownLoaded } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { connect, firstMessages, PROVIDERS, type Provider } from '../model-provider.js';
import { printable, report, Spinner } from '../run-progress.js';
import { endProcessGroupsOnSignal, stopSignal } from '../stop-signal.js';
import { terminalApprover } from '../terminal-approver.js';

/** `toolpact run <module> "<task>"`: run a tool set on a real model, step by step, through the gate. */
export const command: Command = {
  name: 'run',
  summary: 'run the tools on a model in a loop, printing each call, its gate decision and its envelope',
  usage: [
    'toolpact run <module> "<task>" --provider <openai|openai-compatible|anthropic|gemini> --model <name> [options]',
    '',
    '  <module>        a .ts, .mts, .js or .mjs file exporting tools',
    '  <task>          what to ask the model (one shell word: quote it)',
    '  --provider      openai (OPENAI_API_KEY), anthropic (ANTHROPIC_API_KEY), gemini (GEMINI_API_KEY),',
    '                  or openai-compatible: Ollama, vLLM, llama.cpp, LM Studio (needs --base-url or',
    '                  OPENAI_BASE_URL; OPENAI_API_KEY only if the server wants one)',
    '  --model         the model name',
    '  --base-url      the API base URL (e.g. http://127.0.0.1:11434/v1 for Ollama)',
    '  --system        a system prompt',
    '  --max-steps     the most model requests (default 20)',
    '  --max-tokens    stop once this many tokens (input + output) are used',
    '  --timeout       wall-clock limit of each tool call, in milliseconds',
    '  --stream        stream the answers',
    '  --yes           approve every call the policy asks about (without it: y/N on a terminal, else refused)',
    '  --policy        a JSON policy file (default: toolpact.config.*, else the category defaults)',
    '  --audit         append one JSON line per call to this audit log',
    '',
    'Progress goes to stderr; the answer to stdout. Exit 0 when the model answered, 1 when a bound',
    '(steps, tokens) stopped it, 2 for usage errors, a missing key, or a provider that failed.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      provider: 'string',
      model: 'string',
      'base-url': 'string',
      system: 'string',
      'max-steps': 'string',
      'max-tokens': 'string',
      timeout: 'string',
      stream: 'boolean',
      yes: 'boolean',
      policy: 'string',
      audit: 'string',
    });
    const [modulePath, task, ...extra] = positionals;
    if (!modulePath || task === undefined) throw new UsageError('Give a module and a task.');
    if (extra.length > 0)
      throw new UsageError(`Unexpected arguments: ${extra.join(' ')}. Quote the task as one shell word.`);
    const provider = flags.provider;
    if (typeof provider !== 'string' || !(PROVIDERS as readonly string[]).includes(provider)) {
      throw new UsageError(
        `--provider must be one of ${PROVIDERS.join(', ')}${typeof provider === 'string' ? `, received "${provider}"` : ''}.`,
      );
    }
    const model = flags.model;
    if (typeof model !== 'string' || model === '') throw new UsageError('Give the model name with --model.');
    const maxSteps = count(flags['max-steps'], '--max-steps');
    const maxTokens = count(flags['max-tokens'], '--max-tokens');
    const timeoutMs = count(flags.timeout, '--timeout');
    const baseUrl = typeof flags['base-url'] === 'string' ? flags['base-url'] : undefined;
    const setup = {
      provider: provider as Provider,
      model,
      baseUrl,
      system: typeof flags.system === 'string' ? flags.system : undefined,
      stream: flags.stream === true,
    };
    const { adapter, url } = await connect(setup, io);

    const policy = await choosePolicy(typeof flags.policy === 'string' ? flags.policy : undefined, io.cwd);
    // The module may start MCP servers as it loads (importMcpTools over stdio): a signal then ends them.
    const loading = endProcessGroupsOnSignal('exit');
    const loaded = await loadRegistry(modulePath, io.cwd).finally(() => loading.dispose());
    const spinner = new Spinner(io);
    const decisions = new Map<string, GateDecision | undefined>();
    // SIGINT or SIGTERM stops the loop (the model's answer so far is printed), then everything closes.
    const stop = stopSignal();
    // Kept through the shutdown: a signal during it ends the module's MCP servers instead of orphaning them.
    const groups = endProcessGroupsOnSignal('shutdown');
    const controller = new AbortController();
    void stop.signalled.then((signal) => {
      spinner.stop();
      io.stderr(`toolpact run: ${signal}, stopping.\n`);
      controller.abort();
    });
    // The CLI's registry owns the module's registry and the audit log: one close releases them all.
    let registry: Registry | undefined;
    let audit: AuditSink | undefined;
    try {
      audit = openAuditOption(flags.audit, io.cwd);
      const sink = audit;
      const gate = createPolicyGate(policy, {
        approver: terminalApprover(io, {
          yes: flags.yes === true,
          command: 'run',
          before: () => spinner.stop(),
        }),
        observe: (record: CallRecord) => {
          if (record.callId !== undefined) decisions.set(record.callId, record.decision);
          sink?.observe(record);
        },
      });
      registry = ownLoaded(new Registry({ ...gate.registryOptions }), loaded);
      if (audit) registry.own(audit);
      registry.register(loaded.list());
      io.stderr(
        `toolpact run: ${counted(registry.size, 'tool')}, ${provider} model "${model}"${url ? ` at ${url}` : ''}\n`,
      );
      const started = Date.now();
      const result = await runAgent<unknown>({
        model: adapter,
        registry,
        messages: firstMessages(setup.provider, task),
        signal: controller.signal,
        ...(maxSteps !== undefined ? { maxSteps } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        onEvent: (event) => report(event, io, spinner, decisions),
      });
      spinner.stop();
      return finish(result, io, Date.now() - started, url);
    } finally {
      spinner.stop();
      stop.dispose();
      if (!registry) audit?.close();
      await closeWithin(registry ?? loaded, io, 'run');
      groups.dispose();
    }
  },
};

function count(value: string | boolean | undefined, flag: string): number | undefined {
  if (typeof value !== 'string') return undefined;
  const number = Number(value);
  if (!(Number.isInteger(number) && number > 0))
    throw new UsageError(`${flag} needs a positive whole number, received "${value}".`);
  return number;
}

function finish(result: AgentResult<unknown>, io: CliIo, elapsedMs: number, url: string): ExitCode {
  const calls = result.steps.reduce((total, step) => total + step.calls.length, 0);
  const summary = `${result.steps.length} step${result.steps.length === 1 ? '' : 's'}, ${calls} tool call${calls === 1 ? '' : 's'}, ${result.usage.inputTokens} tokens in, ${result.usage.outputTokens} out, ${(elapsedMs / 1000).toFixed(1)} s`;
  switch (result.stopReason) {
    case 'text':
      io.stdout(`${printable(result.text)}\n`);
      io.stderr(`toolpact run: answered (${summary})\n`);
      return 0;
    case 'max_steps':
    case 'budget':
    case 'aborted':
    // `toolpact run` never asks runAgent to interrupt for approvals, so this does not happen here.
    case 'approval':
      if (result.text) io.stdout(`${printable(result.text)}\n`);
      io.stderr(
        `toolpact run: stopped by ${result.stopReason.replace('_', ' ')} before an answer (${summary})\n`,
      );
      return 1;
    case 'model_error': {
      const error = result.error!;
      const unreachable = error.status === undefined && error.name !== 'ProviderPayloadError';
      io.stderr(
        unreachable
          ? `toolpact run: cannot reach the model at ${url}: ${error.message}\n`
          : `toolpact run: ${error.message}\n`,
      );
      return 2;
    }
    default: {
      const exhaustive: never = result.stopReason;
      return exhaustive;
    }
  }
}
