# Moat's boot script (boot.scr on partition 1, made with mkimage -T script at build time; docs/updates.md,
# "Boot selection"). U-Boot's distro boot runs it with devtype/devnum set to the card (mmc on a Pi, virtio
# under QEMU), so the same script serves both.
#
# The slot comes from a boot counter, as RAUC's U-Boot backend expects it (https://rauc.readthedocs.io,
# "Integration", U-Boot): BOOT_ORDER lists the slots to try in order, BOOT_<slot>_LEFT how many tries each
# has left. Every boot takes one try from the first slot that has any; a slot whose count reached 0 is
# skipped, so a version that never gets far enough to be marked good (RAUC resets the count: moat-health,
# after its checks) is left after 3 tries, by U-Boot alone. The variables live in moat-boot.env on this
# partition, in U-Boot's binary environment format (CRC + variables), which Linux reads and writes with
# fw_printenv/fw_setenv through /etc/fw_env.config. A separate file, not U-Boot's own uboot.env: U-Boot on
# a Pi would load that as its whole environment and lose its boot command.

setenv moat_env moat-boot.env
setenv moat_env_size 0x4000
setexpr moat_buf ${kernel_addr_r} + 0xA000000

setenv BOOT_ORDER "A B"
setenv BOOT_A_LEFT 3
setenv BOOT_B_LEFT 3
if load ${devtype} ${devnum}:1 ${moat_buf} ${moat_env}; then
  if env import -c ${moat_buf} ${moat_env_size} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT; then
  else
    echo "moat: ${moat_env} is damaged: trying slot A then B, 3 times each"
  fi
else
  echo "moat: no ${moat_env}: trying slot A then B, 3 times each"
fi

setenv moat_slot
for s in ${BOOT_ORDER}; do
  if test "x${moat_slot}" = "x"; then
    if test "${s}" = "A" && test ${BOOT_A_LEFT} -gt 0; then
      setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
      setenv moat_slot A
      setenv moat_part 2
    fi
    if test "${s}" = "B" && test ${BOOT_B_LEFT} -gt 0; then
      setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
      setenv moat_slot B
      setenv moat_part 3
    fi
  fi
done

if test "x${moat_slot}" = "x"; then
  # Every slot used up its tries: start over rather than stop (a card that never boots helps nobody).
  echo "moat: no slot has tries left (order ${BOOT_ORDER}): 3 tries each again"
  setenv BOOT_A_LEFT 3
  setenv BOOT_B_LEFT 3
  env export -c -s ${moat_env_size} ${moat_buf} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
  fatwrite ${devtype} ${devnum}:1 ${moat_buf} ${moat_env} ${moat_env_size}
  reset
fi

# The try is counted before the kernel starts: a kernel that panics or hangs (the watchdog resets the
# board) has used it.
env export -c -s ${moat_env_size} ${moat_buf} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
if fatwrite ${devtype} ${devnum}:1 ${moat_buf} ${moat_env} ${moat_env_size}; then
else
  echo "moat: could not write ${moat_env}: this boot is not counted"
fi
echo "moat: booting slot ${moat_slot} (partition ${moat_part}); tries left A=${BOOT_A_LEFT} B=${BOOT_B_LEFT}, order ${BOOT_ORDER}"

# The slot's kernel command line is its cmdline.txt (one line; RAUC's post-install handler gives each
# slot its own root= and rauc.slot=). Read as a string: the buffer is zeroed first so that it ends there.
mw.b ${moat_buf} 0 0x1000
load ${devtype} ${devnum}:${moat_part} ${moat_buf} cmdline.txt
setexpr.s bootargs *${moat_buf}

# Debian's vmlinuz is a gzip'd Image: booti unpacks it at kernel_comp_addr_r and moves it to
# kernel_addr_r, where it takes up to about 64 MiB; the initrd goes above that, the buffer above both.
setexpr moat_initrd ${kernel_addr_r} + 0x4000000
setexpr kernel_comp_addr_r ${kernel_addr_r} + 0xB000000
load ${devtype} ${devnum}:${moat_part} ${kernel_addr_r} vmlinuz
setenv kernel_comp_size ${filesize}
load ${devtype} ${devnum}:${moat_part} ${moat_initrd} initrd.img
# The device tree is the one U-Boot was given: the Pi firmware's (with config.txt's dtparam= applied)
# or QEMU's.
booti ${kernel_addr_r} ${moat_initrd}:${filesize} ${fdtcontroladdr}
echo "moat: slot ${moat_slot} did not start: resetting to try again"
reset
