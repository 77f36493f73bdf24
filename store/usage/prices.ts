import type { Config } from '../config/index.js';

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  /** A prompt-cache hit; the input price when the vendor has no cheaper one. */
  cached_input: number;
  /**
   * Input written to the prompt cache (Anthropic bills it at 1.25× input for its 5-minute cache); else the input price.
   */
  cache_write_input: number;
}

const price = (input: number, output: number, cached_input = input, cache_write_input = input): Price => ({
  input,
  output,
  cached_input,
  cache_write_input,
});
/** Anthropic's list prices: a cache read costs a tenth of input and a 5-minute cache write 1.25×. */
const claude = (input: number, output: number): Price => price(input, output, input / 10, input * 1.25);

/**
 * The vendors' published list prices of well-known models (standard tier, prompts under any long-context surcharge),
 * by native model id; a dated or suffixed id (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) takes the price of
 * its longest listed prefix. Prices change: `model_list[].pricing` overrides any of them.
 */
export const BUILT_IN_PRICES: Readonly<Record<string, Price>> = {
  'gpt-5': price(1.25, 10, 0.125),
  'gpt-5-mini': price(0.25, 2, 0.025),
  'gpt-5-nano': price(0.05, 0.4, 0.005),
  'gpt-4.1': price(2, 8, 0.5),
  'gpt-4.1-mini': price(0.4, 1.6, 0.1),
  'gpt-4.1-nano': price(0.1, 0.4, 0.025),
  'gpt-4o': price(2.5, 10, 1.25),
  'gpt-4o-mini': price(0.15, 0.6, 0.075),
  o3: price(2, 8, 0.5),
  'o3-mini': price(1.1, 4.4, 0.55),
  'o4-mini': price(1.1, 4.4, 0.275),
  'claude-opus-4': claude(15, 75),
  'claude-sonnet-4': claude(3, 15),
  'claude-3-7-sonnet': claude(3, 15),
  'claude-3-5-sonnet': claude(3, 15),
  'claude-haiku-4': claude(1, 5),
  'claude-3-5-haiku': claude(0.8, 4),
  'gemini-2.5-pro': price(1.25, 10, 0.31),
  'gemini-2.5-flash': price(0.3, 2.5, 0.075),
  'gemini-2.5-flash-lite': price(0.1, 0.4, 0.025),
  'gemini-2.0-flash': price(0.1, 0.4, 0.025),
  'deepseek-chat': price(0.27, 1.1, 0.07),
  'deepseek-reasoner': price(0.55, 2.19, 0.14),
  'mistral-large': price(2, 6),
  'mistral-small': price(0.1, 0.3),
  'grok-4': price(3, 15, 0.75),
  'grok-3-mini': price(0.3, 0.5, 0.075),
};

/** The listed price of a native model id: its last path segment (`openrouter/anthropic/claude-…`), longest prefix. */
export function builtInPrice(model: string): Price | undefined {
  const id = (model.split('/').at(-1) ?? model).toLowerCase();
  let best: string | undefined;
  for (const listed of Object.keys(BUILT_IN_PRICES)) {
    if (
      (id === listed || id.startsWith(`${listed}-`) || id.startsWith(`${listed}.`)) &&
      listed.length > (best?.length ?? 0)
    )
      best = listed;
  }
  return best === undefined ? undefined : BUILT_IN_PRICES[best];
}

export type PriceOf = (modelName: string) => Price | undefined;

/**
 * The price of each `model_name`: its entry's `pricing`, else the built-in price of its native model; none when
 * unknown.
 */
export function pricesOf(config: Config): PriceOf {
  const known = new Map<string, Price | undefined>();
  for (const entry of config.model_list) {
    if (known.has(entry.model_name)) continue;
    const pricing = entry.pricing;
    known.set(
      entry.model_name,
      pricing
        ? price(
            pricing.input,
            pricing.output,
            pricing.cached_input ?? pricing.input,
            pricing.cache_write_input ?? pricing.input,
          )
        : builtInPrice(entry.model),
    );
  }
  return (modelName) => known.get(modelName);
}

export interface Tokens {
  input: number;
  output: number;
  cached: number;
  /** Of `input`, those written to the prompt cache. */
  cache_write: number;
  reasoning: number;
}

/**
 * What the tokens cost at this price, in US dollars: cached reads and cache writes at their prices, the rest of the
 * input at full.
 */
export function costOf(tokens: Tokens, at: Price): number {
  const fresh = Math.max(0, tokens.input - tokens.cached - tokens.cache_write);
  return (
    (fresh * at.input +
      tokens.cached * at.cached_input +
      tokens.cache_write * at.cache_write_input +
      tokens.output * at.output) /
    1_000_000
  );
}

/** Dollars as the JSON answers give them: to a millionth, so sums of many answers print without float noise. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/** `$4.10`, and small sums to a hundredth of a cent: `$0.0123`. */
export function dollars(amount: number): string {
  return amount >= 1 || amount === 0 ? `$${amount.toFixed(2)}` : `$${amount.toFixed(4)}`;
}
