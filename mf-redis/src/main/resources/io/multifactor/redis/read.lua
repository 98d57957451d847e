-- Mid-period read (FleetPeriods.read): the counts (names and values checked by size before they are read), the replica
-- set's size and whether this replica is in it, and, once per latency period, the fleet entry (by size first).
--
-- KEYS: n:{p} counts, s:{p} replica set, f:{e} fleet aggregate.
-- ARGV: 1 most count fields, 2 largest fleet entry in bytes, 3 '1' to read the fleet entry, 4 replica id,
--       5 longest model name in bytes, 6 longest count value in bytes.
-- Returns {name, count, name, count, ...}, replicas, whether this replica is one of them, fleet entry or '', skipped}.
local counts = {}
local skipped = 0
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'hash' then
  if redis.call('HLEN', KEYS[1]) <= tonumber(ARGV[1]) then
    for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
      if #name > 0 and #name <= tonumber(ARGV[5]) and
        redis.call('HSTRLEN', KEYS[1], name) <= tonumber(ARGV[6]) then
        counts[#counts + 1] = name
        counts[#counts + 1] = redis.call('HGET', KEYS[1], name)
      else skipped = skipped + 1 end
    end
  else skipped = skipped + 1 end
elseif t ~= 'none' then skipped = skipped + 1 end
local replicas = 0
local self = 0
t = redis.call('TYPE', KEYS[2]).ok
if t == 'set' then
  replicas = redis.call('SCARD', KEYS[2])
  self = redis.call('SISMEMBER', KEYS[2], ARGV[4])
elseif t ~= 'none' then skipped = skipped + 1 end
local f = ''
if ARGV[3] == '1' then
  t = redis.call('TYPE', KEYS[3]).ok
  if t == 'string' then
    if redis.call('STRLEN', KEYS[3]) <= tonumber(ARGV[2]) then f = redis.call('GET', KEYS[3])
    else skipped = skipped + 1 end
  elseif t ~= 'none' then skipped = skipped + 1 end
end
return {counts, replicas, self, f, skipped}
