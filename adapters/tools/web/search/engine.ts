import type { SearchEngineName, SearchEngineOptions } from '../../options.js';
import type { SearchRange } from './search-range.js';

export interface SearchCall {
  query: string;
  count: number;
  range?: SearchRange;
  key?: string;
  baseUrl: string;
  options: SearchEngineOptions;
  now: Date;
}

export type EngineRequest = {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Record<string, unknown>;
};

export type Hit = { title: string; url: string; snippet: string };
export type EngineAnswer = { hits: Hit[]; answer?: string };

/** One search vendor: how to ask it and how to read its answer. */
export interface SearchEngine {
  name: SearchEngineName;
  label: string;
  keys: 'required' | 'optional' | 'none';
  /** Absent for an engine whose `base_url` must be configured. */
  defaultBaseUrl?: string;
  request(call: SearchCall): EngineRequest;
  /** `body` is parsed JSON, or the raw text for an HTML engine. */
  parse(body: unknown): EngineAnswer;
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
