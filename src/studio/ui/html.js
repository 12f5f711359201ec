// The page's only templating: htm over Preact's h, so the UI needs no build step.
import htm from 'htm';
import { h } from 'preact';

export const html = htm.bind(h);
