// The demo seeder lives in ./seed/ (one file per stage); this path stays for its importers.
export * from './seed/index.js';
