-- The aggregator's read of one latency period's entries (FleetPeriods.aggregate), bounded in fields and bytes whatever
-- the hash holds: sizes first (HSTRLEN, nothing copied), then the smallest entries up to the budget, so a few huge
-- forged fields cannot crowd the replicas' entries out; everything left is counted.
--
-- KEYS: l:{e} latency entries.
-- ARGV: 1 most entries, 2 largest entry in bytes, 3 most bytes in all, 4 longest replica id in bytes,
--       5 most fields looked at (a larger hash is sampled).
-- Returns {entries, skipped}.
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'none' then return {{}, 0} end
if t ~= 'hash' then return {{}, 1} end
local n = redis.call('HLEN', KEYS[1])
local names
local skipped = 0
if n > tonumber(ARGV[5]) then
  names = redis.pcall('HRANDFIELD', KEYS[1], tonumber(ARGV[5]))
  if type(names) ~= 'table' or names.err then return {{}, n} end
  skipped = n - #names
else names = redis.call('HKEYS', KEYS[1]) end
local sizes = {}
for _, name in ipairs(names) do
  local len = redis.call('HSTRLEN', KEYS[1], name)
  if #name > 0 and #name <= tonumber(ARGV[4]) and len > 0 and len <= tonumber(ARGV[2]) then
    sizes[#sizes + 1] = {name, len}
  else skipped = skipped + 1 end
end
table.sort(sizes, function(a, b) return a[2] < b[2] end)
local out = {}
local total = 0
for _, e in ipairs(sizes) do
  if #out < tonumber(ARGV[1]) and total + e[2] <= tonumber(ARGV[3]) then
    total = total + e[2]
    out[#out + 1] = redis.call('HGET', KEYS[1], e[1])
  else skipped = skipped + 1 end
end
return {out, skipped}
