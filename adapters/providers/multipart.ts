import { randomBytes } from 'node:crypto';

export type FormPart = { name: string; value: string } | { name: string; filename: string; mime: string; data: Buffer };

/** A `multipart/form-data` body (RFC 7578), built by hand so the bytes sent are exactly these. */
export function multipartBody(
  parts: FormPart[],
  boundary = `tern-${randomBytes(12).toString('hex')}`,
): {
  body: Buffer;
  contentType: string;
} {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const name = part.name.replace(/"/g, '%22');
    const head =
      'data' in part
        ? `Content-Disposition: form-data; name="${name}"; filename="${part.filename.replace(/"/g, '%22')}"\r\n` +
          `Content-Type: ${part.mime}`
        : `Content-Disposition: form-data; name="${name}"`;
    chunks.push(
      Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`),
      'data' in part ? part.data : Buffer.from(part.value),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
