import type { FormatEnum, Metadata, Sharp, SharpOptions } from 'sharp';
import type { ImagePart } from '../../../bus/index.js';
import { ToolError } from '../tool.js';

/**
 * The longest edge an image reaches the model with: the messages family scales anything longer down itself (and
 * bills it as sent), the other two accept it; above it the model sees no more detail, only more tokens.
 */
export const MAX_IMAGE_EDGE = 1568;
/** The largest image sent: the messages family refuses one over 5 MB once base64-encoded. */
export const MAX_IMAGE_PART_BYTES = 3_750_000;

type Sent = 'png' | 'jpeg' | 'webp' | 'gif';
const MIME: Record<Sent, ImagePart['mime']> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};
const isSent = (format: keyof FormatEnum | undefined): format is Sent =>
  format === 'png' || format === 'jpeg' || format === 'webp' || format === 'gif';

export interface PreparedImage {
  part: ImagePart;
  /** As the file holds it (turned upright), and its size in bytes. */
  original: { width: number; height: number; bytes: number };
  /** As sent; the same as `original` when the file is sent as it is. */
  sent: { width: number; height: number; bytes: number };
  /** The file's own bytes were sent (no re-encoding). */
  unchanged: boolean;
}

type SharpFactory = (input: Buffer, options: SharpOptions) => Sharp;
let loaded: Promise<SharpFactory> | undefined;
/**
 * libvips loads with the first image, not with the tools: most gateways never need it, and loading it holds up a start.
 */
const sharpOf = (): Promise<SharpFactory> => (loaded ??= import('sharp').then((module) => module.default));

function encoder(sharp: SharpFactory, bytes: Buffer, edge: number, format: Exclude<Sent, 'gif'>): Sharp {
  const resized = sharp(bytes, { failOn: 'error' })
    .autoOrient()
    .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
  if (format === 'jpeg') return resized.flatten({ background: '#ffffff' }).jpeg({ quality: 85 });
  return format === 'webp' ? resized.webp({ quality: 85 }) : resized.png();
}

/**
 * The image a file holds, as a model may be shown it: sent as it is when it is upright, within `MAX_IMAGE_EDGE` and
 * `MAX_IMAGE_PART_BYTES`; else turned upright and scaled down in its own format (a GIF as PNG, its first frame),
 * then as JPEG, then smaller by a quarter at a time, until it fits.
 */
export async function prepareImage(bytes: Buffer, name: string): Promise<PreparedImage> {
  const sharp = await sharpOf();
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { failOn: 'error' }).metadata();
  } catch (error) {
    throw new ToolError('not_an_image', `${name} could not be read as an image (${(error as Error).message})`);
  }
  const { width, height } = meta.autoOrient;
  const original = { width, height, bytes: bytes.length };
  const upright = meta.orientation === undefined || meta.orientation === 1;
  const fits = Math.max(width, height) <= MAX_IMAGE_EDGE && bytes.length <= MAX_IMAGE_PART_BYTES;
  if (isSent(meta.format) && upright && fits) {
    return {
      part: { mime: MIME[meta.format], data: bytes.toString('base64') },
      original,
      sent: original,
      unchanged: true,
    };
  }
  let format: Exclude<Sent, 'gif'> = meta.format === 'jpeg' || meta.format === 'webp' ? meta.format : 'png';
  let edge = MAX_IMAGE_EDGE;
  while (edge >= 64) {
    const { data, info } = await encoder(sharp, bytes, edge, format).toBuffer({ resolveWithObject: true });
    if (data.length <= MAX_IMAGE_PART_BYTES) {
      return {
        part: { mime: MIME[format], data: data.toString('base64') },
        original,
        sent: { width: info.width, height: info.height, bytes: data.length },
        unchanged: false,
      };
    }
    if (format === 'jpeg') edge = Math.floor(edge * 0.75);
    else format = 'jpeg';
  }
  throw new ToolError('image_too_large', `${name} could not be made smaller than ${MAX_IMAGE_PART_BYTES} bytes`);
}
