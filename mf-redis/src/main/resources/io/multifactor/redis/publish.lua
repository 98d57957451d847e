-- Period start (FleetPeriods.publish): one atomic script per period. Every write carries its expiry in the same
-- script, so no cut (a full request queue, a timeout, a failed command) can leave a key without one; each count field
-- is incremented on its own (pcall), and a field or key that holds what the exchange never writes is replaced and
-- counted (UNLINK, Redis 4 or later, frees a large forged key off the main thread), so one damaged entry can neither
-- fail the publication nor make the counts wrong. Membership of the replica set is atomic with the counts: a reader
-- subtracts its own counts exactly when they landed, whatever happened to the reply.
--
-- KEYS: n:{p} counts, s:{p} replica set, l:{e} latency entries, f:{e-1} fleet aggregate, a:{e-1} aggregator lock.
-- ARGV: 1 expiry ms, 2 replica id, 3 latency expiry ms, 4 lock ms (one period), 5 largest count, 6 '1' to push the
--       latency entry, 7 the entry, 8 '1' to try to aggregate, 9 number of counts k, then k pairs (name, count).
-- Returns {skipped, pushed, fleet aggregate exists, lock taken}.
local skipped = 0
local function own(key, kind)
  local t = redis.call('TYPE', key).ok
  if t ~= 'none' and t ~= kind then redis.call('UNLINK', key) skipped = skipped + 1 end
end
own(KEYS[1], 'hash')
own(KEYS[2], 'set')
local max = tonumber(ARGV[5])
local k = tonumber(ARGV[9])
for i = 1, k do
  local name = ARGV[8 + 2 * i]
  local n = ARGV[9 + 2 * i]
  local r = redis.pcall('HINCRBY', KEYS[1], name, n)
  if type(r) ~= 'number' or r > max then
    redis.call('HSET', KEYS[1], name, n)
    skipped = skipped + 1
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
local pushed = 0
if ARGV[6] == '1' then
  own(KEYS[3], 'hash')
  redis.call('HSET', KEYS[3], ARGV[2], ARGV[7])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
  pushed = 1
end
local fleet = 0
local lock = 0
if ARGV[8] == '1' then
  fleet = redis.call('EXISTS', KEYS[4])
  if fleet == 0 and redis.call('SET', KEYS[5], ARGV[2], 'NX', 'PX', ARGV[4]) then lock = 1 end
end
return {skipped, pushed, fleet, lock}
