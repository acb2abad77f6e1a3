import { describe, expect, it } from 'vitest';
import { connectionHosts, targetRole } from '../../src/db/hosts.js';

describe('connection strings of several hosts', () => {
  it('lists each host with its port, the default 5432 where none is given', () => {
    expect(connectionHosts('postgres://u:p@db1:6432,db2/app?target_session_attrs=read-write')).toEqual([
      { host: 'db1', port: 6432 },
      { host: 'db2', port: 5432 },
    ]);
    expect(connectionHosts('postgres://u@[::1]:5433/app')).toEqual([{ host: '::1', port: 5433 }]);
  });

  it("reads the role asked for with libpq's names, and refuses a value that is not one", () => {
    expect(targetRole('postgres://h1,h2/app?target_session_attrs=read-write')).toBe('primary');
    expect(targetRole('postgres://h1,h2/app?target_session_attrs=standby')).toBe('standby');
    expect(targetRole('postgres://h1,h2/app?target_session_attrs=prefer-standby')).toBe('prefer-standby');
    expect(targetRole('postgres://h1,h2/app')).toBe('any');
    expect(targetRole('postgres://h1,h2/app?target_session_attrs=writable')).toBeNull();
  });
});
