/** Where the peer runtime serves its Pico channel, on the gateway's own HTTP server (`tern status` prints it too). */
export const PICO_WS_PATH = '/pico/ws';
