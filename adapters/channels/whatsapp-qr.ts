import QRCode from 'qrcode';

/** A linking code as the terminal shows it (block characters) and as an image the dashboard shows (a data URL). */
export async function renderQr(code: string): Promise<{ terminal: string; dataUrl: string }> {
  const [terminal, dataUrl] = await Promise.all([
    QRCode.toString(code, { type: 'terminal', small: true }),
    QRCode.toDataURL(code),
  ]);
  return { terminal, dataUrl };
}
