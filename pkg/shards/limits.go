package shards

// MaxManifestBytes bounds what is read of a shard manifest (shards.Read): every case of the
// manifest is stored again in the shard ConfigMaps (in etcd, for as long as the Job exists), and
// 64 MiB is about 73 ConfigMaps of the store's ConfigMapBudget. A 1,000,000-case manifest of
// 20-byte IDs takes about 30 MB. It also bounds an input that never ends (--manifest /dev/zero,
// a FIFO): reading stops after MaxManifestBytes+1 bytes with a clear error.
const MaxManifestBytes = 64 << 20
