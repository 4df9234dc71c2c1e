# Filesystems from directories and the disk image from them, without mounting anything (the build machine's
# kernel can mount neither FAT nor partitions). Sourced by build-image.sh.

# Fixed ids and times (SOURCE_DATE_EPOCH) make the filesystems reproducible. 4 KiB blocks and an inode per
# 16 KiB even for the small data filesystem (mke2fs would pick 1 KiB blocks and an inode per 4 KiB), as it
# grows to fill a card at first boot.
make_ext4() { # image size-MiB label uuid source-dir [root-owner uid:gid]
  rm -f "$1"
  E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -F -b 4096 -i 16384 -L "$3" -U "$4" -E "hash_seed=$HASH_SEED,lazy_itable_init=0,root_owner=${6:-0:0}" -O ^orphan_file -d "$5" "$1" "$2M"
}

make_fat() { # image size-MiB source-dir fat-bits label volume-id
  rm -f "$1"
  mkfs.vfat -F "$4" -n "$5" -i "$6" --invariant -C "$1" $(($2 * 1024)) >/dev/null
  (cd "$3" && mcopy -s -m -p -i "$1" ./* ::/)
}

# The table of docs/updates.md, aligned to 4 MiB: MOAT | boot A | boot B | extended (root A | root B | data).
# Root B stays empty (zeros, sparse in the file): the first update fills it. Each logical partition gets
# 4 MiB before it for its EBR. The extended partition ends where the data partition does, so first boot grows
# both to the card (the initrd's moat-grow).
assemble_disk() { # out moat.img boot-a.img boot-b.img root.img data.img
  local mib=2048 # sectors per MiB
  local moat=$(($(stat -c%s "$2") >> 20)) boot=$(($(stat -c%s "$3") >> 20)) root=$(($(stat -c%s "$5") >> 20))
  local data=$(($(stat -c%s "$6") >> 20))
  local p1=4 p2 p3 p4 p5 p6 p7 end
  p2=$((p1 + moat)); p3=$((p2 + boot)); p4=$((p3 + boot))
  p5=$((p4 + 4)); p6=$((p5 + root + 4)); p7=$((p6 + root + 4)); end=$((p7 + data))
  rm -f "$1"
  truncate -s $((end * mib * 512)) "$1"
  sfdisk -q "$1" <<SFDISK
label: dos
label-id: $DISK_ID
start=$((p1 * mib)), size=$((moat * mib)), type=e, bootable
start=$((p2 * mib)), size=$((boot * mib)), type=c
start=$((p3 * mib)), size=$((boot * mib)), type=c
start=$((p4 * mib)), size=$(((end - p4) * mib)), type=f
start=$((p5 * mib)), size=$((root * mib)), type=83
start=$((p6 * mib)), size=$((root * mib)), type=83
start=$((p7 * mib)), size=$((data * mib)), type=83
SFDISK
  dd if="$2" of="$1" bs=1M seek=$p1 conv=notrunc,sparse status=none
  dd if="$3" of="$1" bs=1M seek=$p2 conv=notrunc,sparse status=none
  dd if="$4" of="$1" bs=1M seek=$p3 conv=notrunc,sparse status=none
  dd if="$5" of="$1" bs=1M seek=$p5 conv=notrunc,sparse status=none
  dd if="$6" of="$1" bs=1M seek=$p7 conv=notrunc,sparse status=none
}
