import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { FilterOptions } from '../tools/options.js';
import { charCount, saveArtifact } from '../tools/output/artifact.js';
import { filterSecrets } from '../tools/output/secret-filter.js';
import type { ToolMedia, ToolResult } from '../tools/tool.js';
import { saveMediaArtifact } from './media-artifact.js';

export interface ResultOptions {
  workspace: string;
  maxInlineTextChars: number;
  filter: Pick<FilterOptions, 'enabled' | 'minLength' | 'secrets'>;
}

interface Part {
  text: string;
  media?: ToolMedia;
}

function mediaKind(mime: string | undefined): ToolMedia['kind'] {
  if (mime?.startsWith('image/')) return 'image';
  if (mime?.startsWith('audio/')) return 'audio';
  if (mime?.startsWith('video/')) return 'video';
  return 'file';
}

async function savedPart(workspace: string, data: string, mime: string | undefined, label: string): Promise<Part> {
  const path = await saveMediaArtifact(workspace, data, mime);
  const media: ToolMedia = mime ? { kind: mediaKind(mime), path, mime } : { kind: 'file', path };
  return { text: `${label} (${mime ?? 'unknown type'}) saved to ${path}\n[file:${path}]`, media };
}

async function partOf(block: ContentBlock, workspace: string): Promise<Part> {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'image':
      return savedPart(workspace, block.data, block.mimeType, 'image');
    case 'audio':
      return savedPart(workspace, block.data, block.mimeType, 'audio');
    case 'resource':
      return 'text' in block.resource
        ? { text: `resource ${block.resource.uri}:\n${block.resource.text}` }
        : savedPart(workspace, block.resource.blob, block.resource.mimeType, `resource ${block.resource.uri}`);
    case 'resource_link':
      return { text: `resource link ${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ''}` };
  }
}

async function inlineOrArtifact(text: string, options: ResultOptions): Promise<string> {
  const chars = charCount(text);
  return chars > options.maxInlineTextChars ? saveArtifact(options.workspace, text, chars) : text;
}

/**
 * What the model reads from an MCP result: text parts joined, secrets masked, and text longer than
 * `max_inline_text_chars` Unicode characters replaced by a note and its `[file:…]` artifact. Images
 * and binary resources become workspace files (media a channel can send) whose notes stay inline.
 */
export async function toToolResult(result: CallToolResult, options: ResultOptions): Promise<ToolResult> {
  const parts = await Promise.all(result.content.map((block) => partOf(block, options.workspace)));
  if (parts.length === 0 && result.structuredContent) parts.push({ text: JSON.stringify(result.structuredContent) });
  const texts = parts.filter((p) => !p.media).map((p) => filterSecrets(p.text, options.filter));
  const body = texts.length > 0 ? [await inlineOrArtifact(texts.join('\n'), options)] : [];
  const content = [...body, ...parts.flatMap((p) => (p.media ? [p.text] : []))].join('\n');
  if (result.isError) return { ok: false, content };
  const media = parts.flatMap((p) => (p.media ? [p.media] : []));
  return media.length > 0 ? { ok: true, content, media } : { ok: true, content };
}
