import { eventLabel, stateLabel } from '../format.js';
import type { ChartNode } from '../../../bus/api-shapes.js';

// A layered layout (Sugiyama's, cut down to what the small charts of Tern's machines need): moves that lead
// back up are set aside, every state sits one layer below the deepest state that leads to it, final states
// share the bottom layer, a move that skips layers passes through placeholders of its own in the layers
// between, and each layer is ordered by where its neighbours sit so that fewer moves cross. Moves that
// every state makes to one state (stop) are listed under the chart instead of drawn from each.

export type LaidNode = {
  key: string;
  label: string;
  sub?: string;
  final: boolean;
  x: number;
  y: number;
  w: number;
  layer: number;
};
export type EdgeLabel = { x: number; y: number; text: string; anchor: 'start' | 'middle' | 'end' };
export type LaidEdge = { from: string; to: string; title: string; path: string; label?: EdgeLabel };
export type Layout = {
  box: { x: number; y: number; width: number; height: number };
  nodes: LaidNode[];
  edges: LaidEdge[];
  initial?: LaidNode;
  anyState: string[];
};

export const NODE_H = 26;
const LAYER_GAP = 40;
const NODE_GAP = 16;
const DUMMY_W = 8;
const LABEL_PX = 5.4;
const FONT = '500 11px system-ui, sans-serif';

let measure: CanvasRenderingContext2D | null | undefined;

/** Text width in the chart's font, measured by the browser (estimated where no canvas is available). */
/** `a, b, +3 more` for a label naming more than two events. */
function brief(text: string): string {
  const events = text.split(', ');
  return events.length > 2 ? `${events.slice(0, 2).join(', ')}, +${events.length - 2} more` : text;
}

function textWidth(text: string): number {
  measure ??= document.createElement('canvas').getContext('2d');
  if (!measure) return text.length * 6.4;
  measure.font = FONT;
  return measure.measureText(text).width;
}

type Move = { from: string; to: string; event: string; guards: string[] };

/** The first path segment: moves into or out of a nested state are drawn between their top-level states. */
const top = (path: string): string => path.split('.')[0] ?? path;

function movesOf(chart: ChartNode): { moves: Move[]; anyState: Move[] } {
  const all: Move[] = [];
  const walk = (node: ChartNode, owner: string): void => {
    for (const t of node.transitions)
      if (t.target) all.push({ from: owner, to: top(t.target), event: t.event, guards: t.guards });
    for (const child of node.states) walk(child, owner);
  };
  for (const state of chart.states) walk(state, state.key);
  const anyState = chart.transitions.flatMap((t) =>
    t.target ? [{ from: '*', to: top(t.target), event: t.event, guards: t.guards }] : [],
  );
  // An event that takes every other live state to one state reads better as one line than as a fan of arrows.
  const bySign = new Map<string, Set<string>>();
  for (const m of all) bySign.set(`${m.event}>${m.to}`, (bySign.get(`${m.event}>${m.to}`) ?? new Set()).add(m.from));
  const everywhere = new Set<string>();
  for (const [sign, sources] of bySign) {
    const to = sign.slice(sign.indexOf('>') + 1);
    const others = chart.states.filter((s) => !s.final && s.key !== to).map((s) => s.key);
    if (sources.size >= 2 && others.every((key) => sources.has(key))) everywhere.add(sign);
  }
  const moves = all.filter((m) => !everywhere.has(`${m.event}>${m.to}`));
  for (const sign of everywhere) {
    const [event = '', to = ''] = sign.split('>');
    anyState.push({ from: '*', to, event, guards: [] });
  }
  return { moves, anyState };
}

type Link = { from: string; to: string };

/** Depth-first from the initial state: a move to a state still on the path leads back up. */
function backLinks(keys: string[], start: string | undefined, links: Link[]): Set<Link> {
  const back = new Set<Link>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (key: string): void => {
    state.set(key, 'open');
    for (const link of links) {
      if (link.from !== key) continue;
      const seen = state.get(link.to);
      if (seen === 'open') back.add(link);
      else if (!seen) visit(link.to);
    }
    state.set(key, 'done');
  };
  if (start) visit(start);
  for (const key of keys) if (!state.has(key)) visit(key);
  return back;
}

function longestPath(keys: string[], links: Link[]): Map<string, number> {
  const layer = new Map(keys.map((key) => [key, 0]));
  // The links left form no cycle, so as many passes as states settle every depth.
  for (let pass = 0; pass < keys.length; pass++) {
    let changed = false;
    for (const { from, to } of links) {
      const depth = (layer.get(from) ?? 0) + 1;
      if (depth > (layer.get(to) ?? 0)) {
        layer.set(to, depth);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return layer;
}

type Slot = { key: string; dummy: boolean; w: number; x: number; layer: number };

/** Reorders each layer by the mean position of the slots it links to, sweeping down and up a few times. */
function order(layers: Slot[][], links: Link[]): void {
  const position = new Map<string, number>();
  const index = (): void => layers.forEach((row) => row.forEach((slot, i) => position.set(slot.key, i)));
  index();
  for (let sweep = 0; sweep < 4; sweep++) {
    const down = sweep % 2 === 0;
    const rows = down ? layers.slice(1) : layers.slice(0, -1).reverse();
    for (const row of rows) {
      const mean = (slot: Slot): number => {
        const near = links
          .filter((l) => (down ? l.to === slot.key : l.from === slot.key))
          .map((l) => position.get(down ? l.from : l.to) ?? 0);
        return near.length ? near.reduce((a, b) => a + b, 0) / near.length : (position.get(slot.key) ?? 0);
      };
      const weights = new Map(row.map((slot) => [slot.key, mean(slot)]));
      row.sort(
        (a, b) =>
          (weights.get(a.key) ?? 0) - (weights.get(b.key) ?? 0) ||
          (position.get(a.key) ?? 0) - (position.get(b.key) ?? 0),
      );
      row.forEach((slot, i) => position.set(slot.key, i));
    }
  }
}

type Point = { x: number; y: number };

/** A smooth line through points going down: vertical tangents at every point. */
function smooth(points: Point[]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let path = `M${first.x},${first.y}`;
  let last = first;
  for (const p of rest) {
    const mid = (p.y - last.y) / 2;
    path += last.x === p.x ? ` L${p.x},${p.y}` : ` C${last.x},${last.y + mid} ${p.x},${p.y - mid} ${p.x},${p.y}`;
    last = p;
  }
  return path;
}

/** Where every state and move of a chart goes; computed once per machine. */
export function layoutChart(chart: ChartNode): Layout {
  const { moves, anyState } = movesOf(chart);
  const keys = chart.states.map((s) => s.key);
  const start = chart.initial ?? keys[0];
  const pairs = new Map<string, Move[]>();
  for (const move of moves)
    pairs.set(`${move.from}>${move.to}`, [...(pairs.get(`${move.from}>${move.to}`) ?? []), move]);
  const links: Link[] = [...pairs.values()]
    .map((group) => ({ from: group[0]?.from ?? '', to: group[0]?.to ?? '' }))
    .filter((l) => l.from !== l.to);
  const back = backLinks(keys, start, links);
  const down = links.filter((l) => !back.has(l));
  const depth = longestPath(keys, down);
  const finals = chart.states.filter((s) => s.final).map((s) => s.key);
  const bottom = Math.max(0, ...finals.map((key) => depth.get(key) ?? 0));
  for (const key of finals) depth.set(key, bottom);

  // Slots: the states, and a placeholder in every layer a downward move skips.
  const slots = new Map<string, Slot>();
  for (const key of keys)
    slots.set(key, {
      key,
      dummy: false,
      w: Math.max(54, Math.ceil(textWidth(stateLabel(key))) + 22),
      x: 0,
      layer: depth.get(key) ?? 0,
    });
  const chains = new Map<Link, string[]>();
  const slotLinks: Link[] = [];
  for (const link of down) {
    const from = depth.get(link.from) ?? 0;
    const to = depth.get(link.to) ?? 0;
    const chain = [link.from];
    for (let layer = from + 1; layer < to; layer++) {
      const key = `~${link.from}>${link.to}@${layer}`;
      slots.set(key, { key, dummy: true, w: DUMMY_W, x: 0, layer });
      chain.push(key);
    }
    chain.push(link.to);
    chains.set(link, chain);
    for (let i = 1; i < chain.length; i++) slotLinks.push({ from: chain[i - 1] ?? '', to: chain[i] ?? '' });
  }
  const layerCount = Math.max(0, ...[...slots.values()].map((s) => s.layer)) + 1;
  const layers: Slot[][] = Array.from({ length: layerCount }, () => []);
  for (const slot of slots.values()) layers[slot.layer]?.push(slot);
  order(layers, slotLinks);
  const rowWidth = (row: Slot[]): number =>
    row.reduce((sum, s) => sum + s.w, 0) + NODE_GAP * Math.max(0, row.length - 1);
  const widest = Math.max(...layers.map(rowWidth));
  const yOf = (layer: number): number => 20 + layer * (NODE_H + LAYER_GAP);
  for (const row of layers) {
    let x = (widest - rowWidth(row)) / 2;
    for (const slot of row) {
      slot.x = x;
      x += slot.w + NODE_GAP;
    }
  }

  const states = new Map(chart.states.map((s) => [s.key, s]));
  const nodes = new Map<string, LaidNode>();
  for (const key of keys) {
    const slot = slots.get(key);
    const state = states.get(key);
    if (!slot || !state) continue;
    const sub = state.states.length > 0 ? state.states.map((c) => stateLabel(c.key)).join(' / ') : undefined;
    nodes.set(key, {
      key,
      label: stateLabel(key),
      ...(sub ? { sub } : {}),
      final: state.final,
      x: slot.x,
      y: yOf(slot.layer),
      w: slot.w,
      layer: slot.layer,
    });
  }
  const cx = (key: string): number => {
    const slot = slots.get(key);
    return slot ? slot.x + slot.w / 2 : 0;
  };

  // Where each downward move leaves its state and enters the next, spread so that arrows do not overlap.
  const spread = (ends: Map<string, string[]>, key: string, other: string, width: number): number => {
    const list = ends.get(key) ?? [];
    if (list.length < 2) return 0;
    const step = Math.min(12, (width - 16) / (list.length - 1));
    return (list.indexOf(other) - (list.length - 1) / 2) * step;
  };
  const outs = new Map<string, string[]>();
  const ins = new Map<string, string[]>();
  for (const chain of chains.values()) {
    const [first = '', second = ''] = chain;
    const beforeLast = chain[chain.length - 2] ?? '';
    const last = chain[chain.length - 1] ?? '';
    outs.set(first, [...(outs.get(first) ?? []), second]);
    ins.set(last, [...(ins.get(last) ?? []), beforeLast]);
  }
  for (const list of [...outs.values(), ...ins.values()]) list.sort((a, b) => cx(a) - cx(b));

  const fanLabels = new Map<string, { text: string; count: number }>();
  const textOf = (group: Move[]): string => [...new Set(group.map((m) => eventLabel(m.event)))].join(', ');
  for (const group of pairs.values()) {
    const from = group[0]?.from ?? '';
    const text = textOf(group);
    const known = fanLabels.get(`${from}:${text}`);
    fanLabels.set(`${from}:${text}`, { text, count: (known?.count ?? 0) + 1 });
  }
  const placedFans = new Set<string>();
  let leftMost = 0;
  let rightMost = widest;
  let backLane = 0;
  const edges: LaidEdge[] = [];
  for (const group of pairs.values()) {
    const from = group[0]?.from ?? '';
    const to = group[0]?.to ?? '';
    const a = nodes.get(from);
    const b = nodes.get(to);
    if (!a || !b) continue;
    const text = textOf(group);
    const guards = [...new Set(group.flatMap((m) => m.guards))];
    const fan = fanLabels.get(`${from}:${text}`);
    let path: string;
    let label: EdgeLabel | undefined;
    const link = down.find((l) => l.from === from && l.to === to);
    const chain = link ? chains.get(link) : undefined;
    if (from === to) {
      const x = a.x + a.w;
      path = `M${x},${a.y + 7} C${x + 24},${a.y - 6} ${x + 24},${a.y + NODE_H + 6} ${x},${a.y + NODE_H - 7}`;
      label = { x: x + 24, y: a.y + NODE_H / 2 + 3, text, anchor: 'start' };
    } else if (chain) {
      const points: Point[] = [{ x: cx(from) + spread(outs, from, chain[1] ?? '', a.w), y: a.y + NODE_H }];
      for (const key of chain.slice(1, -1)) {
        const y = yOf(slots.get(key)?.layer ?? 0);
        points.push({ x: cx(key), y }, { x: cx(key), y: y + NODE_H });
      }
      points.push({ x: cx(to) + spread(ins, to, chain[chain.length - 2] ?? '', b.w), y: b.y });
      path = smooth(points);
      const p0 = points[0] ?? { x: 0, y: 0 };
      const p1 = points[1] ?? p0;
      label = {
        x: (p0.x + p1.x) / 2 + (p1.x < p0.x - 4 ? -5 : 5),
        y: (p0.y + p1.y) / 2 + 3,
        text,
        anchor: p1.x < p0.x - 4 ? 'end' : 'start',
      };
    } else {
      // Back up: round the side of the layers between that is nearer the state it leaves, one lane further
      // out for each such move.
      const low = Math.min(a.layer, b.layer);
      const high = Math.max(a.layer, b.layer);
      const between = [...nodes.values()].filter((n) => n.layer >= low && n.layer <= high);
      const right = a.x + a.w / 2 > widest / 2;
      const lane = 22 + backLane * 10;
      backLane++;
      const x = right ? Math.max(...between.map((n) => n.x + n.w)) + lane : Math.min(...between.map((n) => n.x)) - lane;
      const ax = right ? a.x + a.w : a.x;
      const bx = right ? b.x + b.w : b.x;
      path = `M${ax},${a.y + NODE_H / 2} C${x},${a.y + NODE_H / 2} ${x},${b.y + NODE_H / 2} ${bx},${b.y + NODE_H / 2}`;
      label = { x: right ? x - 4 : x + 4, y: (a.y + b.y) / 2 + NODE_H / 2 + 3, text, anchor: right ? 'start' : 'end' };
      if (right) rightMost = Math.max(rightMost, x);
      else leftMost = Math.min(leftMost, x);
    }
    // Several moves out of one state on one event (a model answer leading to four states) share one label.
    if (fan && fan.count > 1) {
      const fanKey = `${from}:${text}`;
      const fanOuts = outs.get(from) ?? [];
      const reach =
        fanOuts.length > 1 ? Math.min(12, (a.w - 16) / (fanOuts.length - 1)) * ((fanOuts.length - 1) / 2) : 0;
      label = placedFans.has(fanKey)
        ? undefined
        : { x: a.x + a.w / 2 + reach + 6, y: a.y + NODE_H + 12, text, anchor: 'start' };
      placedFans.add(fanKey);
    }
    // A move on many events (a state that waits on any of them) names two on the chart: the rest are in its title,
    // so the chart keeps a width it can be read at.
    if (label) label.text = brief(label.text);
    if (label) {
      const w = label.text.length * LABEL_PX;
      leftMost = Math.min(
        leftMost,
        label.anchor === 'end' ? label.x - w : label.anchor === 'middle' ? label.x - w / 2 : label.x,
      );
      rightMost = Math.max(rightMost, label.anchor === 'start' ? label.x + w : label.x);
    }
    if (from === to) rightMost = Math.max(rightMost, a.x + a.w + 26);
    edges.push({
      from,
      to,
      path,
      ...(label ? { label } : {}),
      title: `${a.label} → ${b.label} on ${text}${guards.length ? ` (when ${guards.join(' / ')})` : ''}`,
    });
  }
  const laid = [...nodes.values()];
  const initial = start ? nodes.get(start) : undefined;
  const box = {
    x: Math.floor(leftMost - 6),
    y: 0,
    width: Math.ceil(rightMost - leftMost + 12),
    height: yOf(layerCount - 1) + NODE_H + 8,
  };
  return {
    box,
    nodes: laid,
    edges,
    ...(initial ? { initial } : {}),
    anyState: anyState.map((m) => `${eventLabel(m.event)} → ${stateLabel(m.to)}`),
  };
}
