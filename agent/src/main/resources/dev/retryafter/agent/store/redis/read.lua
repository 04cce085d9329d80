-- Everything, carrying the successes counted meanwhile. KEYS: hash, streaks, admitted. ARGV: admitted,
-- bucket, window. Returns {now, the hash's fields and values, the streaks newest first}.
flush(KEYS[1], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {d(now), redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}
