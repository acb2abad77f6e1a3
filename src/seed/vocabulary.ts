/** What the demo data talks about: assets, streak series, descriptions, user names. */

export interface Asset {
  symbol: string;
  name: string;
  /** Pool title before " on <day>". */
  title: string;
  /** What is measured, for descriptions. */
  what: string;
  price: number;
  /** Decimal places of a predicted value; the step is stepTicks / 10^precision. */
  precision: number;
  stepTicks: number;
  source: string;
}

export const ASSETS: readonly Asset[] = [
  {
    symbol: 'BTC',
    name: 'Bitcoin',
    title: 'BTC price',
    what: 'Bitcoin (BTC) spot price',
    price: 98_000,
    precision: 0,
    stepTicks: 10,
    source: 'Coinbase BTC-USD spot price at the reference time',
  },
  {
    symbol: 'ETH',
    name: 'Ethereum',
    title: 'ETH price',
    what: 'Ethereum (ETH) spot price',
    price: 3_600,
    precision: 1,
    stepTicks: 5,
    source: 'Coinbase ETH-USD spot price at the reference time',
  },
  {
    symbol: 'SOL',
    name: 'Solana',
    title: 'SOL price',
    what: 'Solana (SOL) spot price',
    price: 210,
    precision: 2,
    stepTicks: 1,
    source: 'Pyth SOL/USD price feed',
  },
  {
    symbol: 'XAU',
    name: 'gold',
    title: 'Gold price',
    what: 'spot gold (XAU) price per troy ounce',
    price: 2_700,
    precision: 1,
    stepTicks: 1,
    source: 'LBMA Gold Price PM auction',
  },
  {
    symbol: 'SPX',
    name: 'S&P 500',
    title: 'S&P 500 close',
    what: 'closing level of the S&P 500 index',
    price: 6_000,
    precision: 2,
    stepTicks: 25,
    source: 'S&P Dow Jones Indices official close',
  },
  {
    symbol: 'EURUSD',
    name: 'EUR/USD',
    title: 'EUR/USD rate',
    what: 'euro to US dollar exchange rate (EUR/USD)',
    price: 1.08,
    precision: 4,
    stepTicks: 1,
    source: 'ECB euro foreign exchange reference rate',
  },
  {
    symbol: 'JUP',
    name: 'Jupiter',
    title: 'JUP price',
    what: 'Jupiter (JUP) token price',
    price: 1.2,
    precision: 3,
    stepTicks: 1,
    source: 'Pyth JUP/USD price feed',
  },
  {
    symbol: 'WTI',
    name: 'crude oil',
    title: 'WTI crude price',
    what: 'WTI crude oil front-month futures settlement',
    price: 72,
    precision: 2,
    stepTicks: 1,
    source: 'NYMEX WTI front-month settlement',
  },
  {
    symbol: 'BONK',
    name: 'Bonk',
    title: 'BONK price',
    what: 'Bonk (BONK) memecoin price',
    price: 0.00003,
    precision: 8,
    stepTicks: 1,
    source: 'Pyth BONK/USD price feed',
  },
];

export const STREAK_SERIES: ReadonlyArray<{ title: string; symbol: string }> = [
  { title: 'Bitcoin Weekly Close', symbol: 'BTC' },
  { title: 'Ether Weekly', symbol: 'ETH' },
  { title: 'Solana Sprint', symbol: 'SOL' },
  { title: 'S&P Friday Close', symbol: 'SPX' },
  { title: 'Gold Rush', symbol: 'XAU' },
  { title: 'Forex Marathon', symbol: 'EURUSD' },
];

export const DESCRIPTIONS: ReadonlyArray<(a: Asset, day: string) => string> = [
  (a, day) =>
    `Where will the ${a.what} be in US dollars on ${day} at 16:00 UTC? Predict the value; the closer you get, the larger your share of the pool.`,
  (a, day) => `Predict the ${a.what} on ${day}. Resolved from the ${a.source}. Stakes are in the demo token.`,
  (a, day) => `${a.name} outlook: what is the ${a.what} on ${day} (16:00 UTC)? Precise predictions earn the most.`,
  (a, day) => `A pool on ${a.name}: enter your estimate of the ${a.what} for ${day}, priced in USD.`,
];

export const ADJECTIVES = [
  'brave',
  'calm',
  'eager',
  'fancy',
  'gentle',
  'happy',
  'jolly',
  'keen',
  'lucky',
  'mighty',
  'nimble',
  'proud',
  'quick',
  'sharp',
  'witty',
  'zesty',
  'bold',
  'cosmic',
  'solar',
  'lunar',
];
export const NOUNS = [
  'otter',
  'falcon',
  'tiger',
  'panda',
  'whale',
  'badger',
  'lynx',
  'raven',
  'bison',
  'gecko',
  'heron',
  'koala',
  'moose',
  'orca',
  'puffin',
  'yak',
  'degen',
  'hodler',
  'trader',
  'oracle',
];
export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
