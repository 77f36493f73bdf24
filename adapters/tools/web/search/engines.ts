import type { SearchEngineName } from '../../options.js';
import type { SearchEngine } from './engine.js';
import { baiduSearch, brave, exa, glmSearch, kagi, perplexity, tavily } from './keyed-engines.js';
import { duckduckgo, keenable, searxng } from './keyless-engines.js';
import { gemini, sogou } from './peer-engines.js';

/** In the order an engine is picked when `tools.web.provider` names none. */
export const ENGINES: Record<SearchEngineName, SearchEngine> = {
  perplexity,
  brave,
  searxng,
  tavily,
  kagi,
  keenable,
  exa,
  baidu_search: baiduSearch,
  glm_search: glmSearch,
  gemini,
  duckduckgo,
  sogou,
};
