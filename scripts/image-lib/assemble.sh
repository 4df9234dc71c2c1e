# Filesystems from directories and the disk image from them, without mounting anything (the build machine's
# kernel can mount neither FAT nor partitions). Sourced by build-image.sh.

# Fixed ids and times (SOURCE_DATE_EPOCH) make the filesystems reproducible. 4 KiB blocks and an inode per
# 16 KiB even for the small data filesystem (mke2fs would pick 1 KiB blocks and an inode per 4 KiB), as it
# grows to fill a card at first boot.
make_ext4() { # image size-MiB label uuid source-dir [root-owner uid:gid]
  rm -f "$1"
  E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -F -b 4096 -i 16384 -L "$3" -U "$4" -E "hash_seed=$HASH_SEED,lazy_itable_init=0,root_owner=${6:-0:0}" -O ^orphan_file -d "$5" "$1" "$2M"
}

make_fat() { # image size-MiB source-dir
  rm -f "$1"
  mkfs.vfat -F 32 -n MOAT -i "$BOOT_VOLID" --invariant -C "$1" $(($2 * 1024)) >/dev/null
  (cd "$3" && mcopy -s -m -p -i "$1" ./* ::/)
}

# boot | root | data, aligned to 4 MiB; the data partition is last so first boot can grow it to the card.
assemble_disk() { # out boot.img root.img data.img
  local boot_mb=$(($(stat -c%s "$2") >> 20)) root_mb=$(($(stat -c%s "$3") >> 20)) data_mb=$(($(stat -c%s "$4") >> 20))
  local s=2048 # sectors per MiB
  local p1=$((4 * s)) p2 p3
  p2=$((p1 + boot_mb * s)); p3=$((p2 + root_mb * s))
  rm -f "$1"
  truncate -s $(((p3 + data_mb * s) * 512)) "$1"
  sfdisk -q "$1" <<SFDISK
label: dos
label-id: $DISK_ID
start=$p1, size=$((boot_mb * s)), type=c, bootable
start=$p2, size=$((root_mb * s)), type=83
start=$p3, size=$((data_mb * s)), type=83
SFDISK
  dd if="$2" of="$1" bs=1M seek=$((p1 / s)) conv=notrunc,sparse status=none
  dd if="$3" of="$1" bs=1M seek=$((p2 / s)) conv=notrunc,sparse status=none
  dd if="$4" of="$1" bs=1M seek=$((p3 / s)) conv=notrunc,sparse status=none
}
